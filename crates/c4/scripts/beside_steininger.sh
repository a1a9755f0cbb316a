#!/usr/bin/env bash
# One set of positions solved by transpo-c4 and by Christophe Steininger's solver, strong and
# weak, on 1 and 2 threads, each run REPEAT times (default 3) interleaved (ours, his, ours,
# his, ...), and one Markdown row per (strength, threads): the median of the runs' mean time a
# position for each, the ratio ours / his. Every score is
# checked against the set's (which transpo-c4 sample wrote) by both programs: a differing
# score stops the script.
#
# His binaries, built outside the repository for the set's board:
#   ../shared/tools/steininger-build.sh GITDIR HISDIR W H 1 2     # HISDIR/benchWxH_T (strong)
# and the same harness (scripts/steininger_bench.cpp) with SOLVE_STRONGLY = false as
# HISDIR/wbenchWxH_T (weak). Ours with --hash-mib 1024 beside his 1 GB table; each program
# clears its table before each position and times only the solve.
#
#   crates/connect4/scripts/beside_steininger.sh BIN HISDIR BOARD SET > rows.md
set -euo pipefail
bin="$1" his="$2" board="$3" set="$4"
weak_set="$(mktemp)"
trap 'rm -f "$weak_set"' EXIT
# The weak score is the sign of the strong one.
awk '{ s = $2 > 0 ? 1 : ($2 < 0 ? -1 : 0); print $1, s }' "$set" > "$weak_set"
name="$(basename "$set")"
repeat="${REPEAT:-3}"
# Microseconds of "12.3 µs", "1.234 ms" or "2.5 s".
micros() { awk '{ v = $1; if ($2 == "ms") v *= 1000; else if ($2 == "s") v *= 1e6; print v }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ours_mean() { # strength threads
  local flag=""
  [ "$1" = weak ] && flag="--weak"
  "$bin" bench --board "$board" --threads "$2" --hash-mib 1024 $flag "$set" | tail -n 1 \
    | awk -F'|' '{ gsub(/ /, "", $4); if ($4 != "0") { print "wrong scores: " $4 > "/dev/stderr"; exit 1 } print $5 }'
}
his_mean() { # strength threads
  local exe="$his/bench${board}_$2" input="$set"
  if [ "$1" = weak ]; then exe="$his/wbench${board}_$2"; input="$weak_set"; fi
  "$exe" < "$input" 2>/dev/null | awk '{ s += $3; n++ } END { printf "%.1f µs\n", s / n }'
}
show() { awk '{ if ($1 >= 1000) printf "%.3f ms", $1 / 1000; else printf "%.1f µs", $1 }'; }
echo "| $board set | strength | threads | ours | his | ours / his |"
echo "|---|---|---:|---:|---:|---:|"
for strength in strong weak; do
  for threads in 1 2; do
    ours="" theirs=""
    for _ in $(seq "$repeat"); do
      ours="$ours $(ours_mean "$strength" "$threads" | micros)"
      theirs="$theirs $(his_mean "$strength" "$threads" | micros)"
    done
    ours="$(echo "$ours" | tr ' ' '\n' | grep . | median)"
    theirs="$(echo "$theirs" | tr ' ' '\n' | grep . | median)"
    ratio="$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')"
    echo "| $name | $strength | $threads | $(echo "$ours" | show) | $(echo "$theirs" | show) | $ratio |"
  done
done
