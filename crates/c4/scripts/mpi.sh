#!/usr/bin/env bash
# mpi.sh BIN BOARD NP [--weak]: one solve of the empty BOARD on one thread, then the same
# with `mpirun -np NP` (NP - 1 one-thread workers), and the ratio of their positions.
# Oversubscribed where NP exceeds the cores (fine for counting positions, not for timing).
set -euo pipefail
bin=$1 board=$2 np=$3; shift 3
one=$(echo - | "$bin" --board "$board" --threads 1 "$@" 2>/dev/null)
mpi=$(echo - | mpirun --oversubscribe --allow-run-as-root -x TRANSPO_C4_MPI_LEAF \
  -x TRANSPO_C4_MPI_GROUP -x TRANSPO_C4_MPI_STEAL -x TRANSPO_C4_MPI_SHARE \
  -x TRANSPO_C4_MPI_SERIAL -x TRANSPO_C4_MPI_ALONE -x TRANSPO_C4_MPI_ALONE_ALL -x TRANSPO_C4_MPI_AHEAD -x TRANSPO_C4_MPI_GUESS -np "$np" "$bin" --board "$board" \
  --threads 1 "$@" 2>/dev/null)
read -r _ s1 p1 t1 <<<"$one"
read -r _ s2 p2 t2 <<<"$mpi"
[ "$s1" = "$s2" ] || { echo "$board $*: score $s2 under MPI, $s1 alone" >&2; exit 1; }
awk -v b="$board" -v w="${*:-strong}" -v np="$np" -v s="$s1" -v p1="$p1" -v p2="$p2" \
  -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%s %s -np %s: score %s, one %d positions %.1f s, mpi %d positions %.1f s, %.2fx\n", b, w, np, s, p1, t1/1e6, p2, t2/1e6, p2/p1 }'
