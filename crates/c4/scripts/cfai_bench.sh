#!/usr/bin/env bash
# Our Python package (transpo_c4) beside connect-four-ai 1.0.0 (a Rust port of Pons' solver,
# one thread, a fixed table, its embedded depth-8 book) on the first N lines of a Pons test
# set, each line on a cleared table, each solver with its own depth-8 book; interleaved runs.
#
#   crates/c4/scripts/cfai_bench.sh [SET] [N] [RUNS] [THREADS...]
#   e.g. crates/c4/scripts/cfai_bench.sh ../shared/data/connect4/Test_L1_R3 20 2 1 2
#
# connect-four-ai is built outside the repository:
#   cargo install connect-four-ai --version 1.0.0 --bin benchmark --root /tmp/cfai
# (its `benchmark` resets the table before each line and sums the solve times). Ours: a
# fresh transpo_c4.Solver (built-in book, 128 MiB), clear() then solve() for each line, the
# solve calls timed (python3 must import transpo_c4: pip install ./crates/python).
set -euo pipefail
set_file="${1:-../shared/data/connect4/Test_L1_R3}"
lines="${2:-20}"
runs="${3:-2}"
shift $(( $# < 3 ? $# : 3 ))
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
cfai="${CFAI:-/tmp/cfai/bin/benchmark}"
python="${PYTHON:-python3}"
if [ ! -x "$cfai" ]; then
  echo "no $cfai: cargo install connect-four-ai --version 1.0.0 --bin benchmark --root /tmp/cfai" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
head -n "$lines" "$set_file" >"$work/lines"

ours() {
  "$python" - "$work/lines" "$1" <<'PY'
import sys, time
from transpo_c4 import Solver
path, threads = sys.argv[1], int(sys.argv[2])
lines = [line.split() for line in open(path)]
solver = Solver(threads=threads, hash_mib=128)  # the built-in depth-8 book
total, wrong = 0.0, 0
for moves, expected in lines:
    solver.clear()
    start = time.perf_counter()
    score = solver.solve(moves)
    total += time.perf_counter() - start
    wrong += score != int(expected)
print(f"{total:.3f} {wrong}")
PY
}

theirs() {
  local out mean unit count
  out="$("$cfai" "$work/lines" 2>/dev/null)"
  grep -q "Accuracy: $lines / $lines" <<<"$out" || { echo "connect-four-ai: wrong scores: $out" >&2; exit 1; }
  mean="$(sed -n 's/^Mean time per position: \([0-9.]*\)\([a-zµ]*\)$/\1 \2/p' <<<"$out")"
  count="$lines"
  awk -v m="${mean% *}" -v u="${mean#* }" -v n="$count" 'BEGIN {
    f = (u == "s") ? 1 : (u == "ms") ? 1e-3 : (u == "µs" || u == "us") ? 1e-6 : 1e-9;
    printf "%.3f\n", m * f * n }'
}

echo "$(basename "$set_file"), first $lines lines, $runs runs, $(date -u +%F), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | connect-four-ai | $(printf 'ours, %s thread(s) | ratio | ' "${threads[@]}")"
for run in $(seq 1 "$runs"); do
  row="| $run | "
  cf="$(theirs)"
  row+="$cf s | "
  for t in "${threads[@]}"; do
    read -r took wrong < <(ours "$t")
    [ "$wrong" = 0 ] || { echo "ours: $wrong wrong scores" >&2; exit 1; }
    row+="$took s | $(awk -v a="$took" -v b="$cf" 'BEGIN { printf "%.2f", a / b }') | "
  done
  echo "$row"
done
