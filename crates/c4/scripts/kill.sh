#!/usr/bin/env bash
# kill.sh BIN BOARD NP SECS [FLAGS...]: what a kill costs a solve over MPI;
# THREADS=T for workers of T threads (default 1).
# The empty BOARD on `mpirun -np NP` with a state file, SIGTERM to mpirun after SECS seconds,
# then the same command again; and the same solve uninterrupted. Prints the positions the state
# file held at the kill, the resumed solve's total and the uninterrupted one's, and the extra
# positions over those held (an upper bound on the share of the work lost: the file does not
# count the jobs in flight). With NP = 2 (one worker) the uninterrupted count does not vary.
set -euo pipefail
bin=$1 board=$2 np=$3 secs=$4; shift 4
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
mpi=(mpirun --oversubscribe --allow-run-as-root -np "$np" "$bin" --board "$board" --threads "${THREADS:-1}" "$@")
echo - | "${mpi[@]}" --state "$dir/state" >/dev/null 2>&1 &
pid=$!
sleep "$secs"
kill -TERM "$pid"
wait "$pid" || true
held=$(sed -n 's/^line .* positions \([0-9]*\) micros.*/\1/p' "$dir/state" 2>/dev/null || true)
resumed=$(echo - | "${mpi[@]}" --state "$dir/state" 2>/dev/null | awk '{print $3}')
whole=$(echo - | "${mpi[@]}" 2>/dev/null | awk '{print $3}')
awk -v b="$board" -v np="$np" -v s="$secs" -v h="${held:-0}" -v r="$resumed" -v w="$whole" \
  'BEGIN { printf "%s -np %s killed at %s s: %d positions held, resumed total %d, uninterrupted %d, extra %.1f%% of those held\n", b, np, s, h, r, w, (h > 0 ? 100 * (r - w) / h : 0) }'
