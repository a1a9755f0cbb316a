#!/usr/bin/env bash
# One solve against the same solve split into rounds: the positions both explore, the rounds,
# and the wall time of each, for the README's many-machines section.
#
#   scripts/rounds.sh BIN BOARD DEPTH SHARDS [--weak] [--hash-mib N]
#
# BIN is a built transpo-c4. One solve: `echo - | BIN --board BOARD --threads 1`. The split:
# `split --depth DEPTH`, then every round's SHARDS shards run side by side (one thread each)
# and merged, while merge exits 3 (any other failure stops the script). Prints one line:
# board strength one_positions one_s split_positions rounds split_wall_s ratio.
# ONE="LINE" (the one solve's output line, `- score positions micros`) skips the one solve,
# for several splits of one board in a row; one_s is then its micros. TRACE=1 prints on
# stderr, after each round, its time so far and each shard's leaves/seconds searched.
set -euo pipefail
bin=$1 board=$2 depth=$3 shards=$4
shift 4
flags=("$@")
strength=strong
for f in "${flags[@]}"; do [ "$f" = --weak ] && strength=weak; done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
now() { date +%s.%N; }
# The round just searched: the seconds since the split began, then each shard's leaves and
# seconds (the results lines' micros, summed).
trace_round() {
  printf "round %d at %.1f s:" "$rounds" "$(awk -v a="$(now)" -v b="$t1" 'BEGIN { print a - b }')"
  for f in "$dir"/run/round-"$rounds"-results-*; do
    awk '!/^#/ { n++; s += $4 } END { printf " %d/%.1f", n, s / 1e6 }' "$f"
  done
  echo
}
t0=$(now)
one=${ONE:-$(echo - | "$bin" --board "$board" --threads 1 "${flags[@]}" 2>/dev/null)}
t1=$(now)
[ -n "${ONE:-}" ] && t0=$(awk -v t="$t1" -v m="$(echo "$one" | awk '{print $4}')" 'BEGIN { printf "%.6f", t - m / 1e6 }')
"$bin" split --board "$board" --depth "$depth" --out "$dir/run" "${flags[@]}" 2>/dev/null
rounds=0
while :; do
  rounds=$((rounds + 1))
  pids=()
  for i in $(seq 1 "$shards"); do
    "$bin" solve-list "$dir/run" --shard "$i/$shards" --threads 1 "${flags[@]}" 2>/dev/null &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  [ -n "${TRACE:-}" ] && trace_round >&2
  set +e
  line=$("$bin" merge "$dir/run" 2>/dev/null)
  rc=$?
  set -e
  [ "$rc" = 3 ] && continue
  [ "$rc" = 0 ] || { echo "merge failed: $rc" >&2; exit 1; }
  break
done
t2=$(now)
one_nodes=$(echo "$one" | awk '{print $3}')
split_nodes=$(echo "$line" | awk '{print $3}')
[ "$(echo "$one" | awk '{print $2}')" = "$(echo "$line" | awk '{print $2}')" ] \
  || { echo "scores differ: $one / $line" >&2; exit 1; }
awk -v b="$board" -v s="$strength" -v on="$one_nodes" -v t0="$t0" -v t1="$t1" \
  -v sn="$split_nodes" -v r="$rounds" -v t2="$t2" \
  'BEGIN { printf "%s %s %.0f %.1f %.0f %d %.1f %.2f\n", b, s, on, t1 - t0, sn, r, t2 - t1, sn / on }'
