#!/usr/bin/env bash
# sixteen.sh DIR OUTDIR [SECONDS]: the 16-core measurements of the threads (split points) and of
# MPI (a manager and 16 workers) in one run, for a lent machine with neither Rust nor MPI.
# DIR holds what travels (made by the developer, kept out of git):
#   DIR/bin/c4, DIR/bin/c4mpi     stripped `transpo-c4` release builds, without and with `mpi`;
#   DIR/stein/{weak,strong}7x6_T  Steininger's solver (../shared/tools/steininger-build.sh);
#   DIR/data/Test_L1_R3           Pons' Begin-Hard set;
#   DIR/ompi                      OpenMPI's orterun, plugins, help files and the libraries they
#                                 load (OPAL_PREFIX), with libstdc++ for Steininger's builds.
# Steps run in order of importance, each under its own timeout, and stop at SECONDS (default
# 500) so that what was measured comes back. DIR is over the 64 MiB the device tool carries
# unpacked: carry it as one gzipped tar and unpack it there first (docs/connect4/mpi.md,
# 2026-11-28, “on 16 cores”). Every line of OUTDIR/results.txt is one run:
# its label, its wall time in seconds (start-up included), and the program's last line.
set -u
dir=$(cd "$1" && pwd) out=$2 budget=${3:-500}
mkdir -p "$out"
export OPAL_PREFIX=$dir/ompi
export PATH=$OPAL_PREFIX/bin:$PATH LD_LIBRARY_PATH=$OPAL_PREFIX/libs
export PMIX_MCA_mca_base_component_path=$OPAL_PREFIX/pmix
res=$out/results.txt err=$out/stderr.txt
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
log() { echo "$*" | tee -a "$res"; }
# run LABEL LIMIT INPUT CMD...: one timed run (wall, start-up included) fed INPUT on stdin.
run() {
  local label=$1 limit=$2 input=$3; shift 3
  local l; l=$(left); [ "$l" -lt 5 ] && { log "$label skipped (budget)"; return; }
  [ "$limit" -gt "$l" ] && limit=$l
  local s e o rc; s=$(date +%s%N)
  o=$(echo "$input" | timeout "$limit" "$@" 2>>"$err"); rc=$?
  e=$(date +%s%N)
  echo "== $label" >>"$out/full.txt"; echo "$o" >>"$out/full.txt"
  log "$label $(( (e - s) / 1000000 )) ms rc=$rc | $(echo "$o" | grep -v '^ ' | tail -1)"
}
c4=$dir/bin/c4 mpi=$dir/bin/c4mpi s=$dir/stein bh=$dir/data/Test_L1_R3
mpirun_=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader
  --mca pml ob1 -x TRANSPO_C4_MPI_ALONE -x TRANSPO_C4_MPI_LEAF -x TRANSPO_C4_MPI_SPIN_US -x TRANSPO_C4_MPI_LANES -x TRANSPO_C4_MPI_HELP
  -x TRANSPO_C4_MPI_GUESS -x TRANSPO_C4_MPI_ALONE_ALL)

{ nproc; lscpu; free -g; ldd "$mpi"; ldd "$s/weak7x6_16"; } >"$out/machine.txt" 2>&1
log "cores $(nproc), $(lscpu | grep -m1 'Model name' | sed 's/ \+/ /g'), $(lscpu | grep -m1 'Thread(s) per core' | sed 's/ \+/ /g')"
"$mpi" --version >/dev/null 2>>"$err" || { log "c4mpi does not start: threads on c4"; mpi=$c4; }

# The cluster's goals first, each against the same round's one process: one thread, sixteen
# threads, 2 workers x 8 lanes and 4 x 4 (their idle lanes helping the running jobs, and not:
# HELP=0), a manager and 16 one-thread workers (and the same guessing a job for each idle
# worker: GUESS=16, which only cluster::simulate has timed); weak then strong, twice in two
# rounds.
for strength in weak strong; do
  w=; [ $strength = weak ] && w=--weak
  run "threads1 $strength" 150 '- 1' "$c4" --threads 1 $w
  for round in 1 2; do
    run "threads16 $strength r$round" 60 '- 1' "$c4" --threads 16 $w
    run "mpi3x8 $strength r$round" 60 '-' "${mpirun_[@]}" -np 3 "$mpi" --threads 8 $w
    run "mpi5x4 $strength r$round" 60 '-' "${mpirun_[@]}" -np 5 "$mpi" --threads 4 $w
    run "mpi3x8 $strength help0 r$round" 60 '-' env TRANSPO_C4_MPI_HELP=0 "${mpirun_[@]}" -np 3 "$mpi" --threads 8 $w
    run "mpi5x4 $strength help0 r$round" 60 '-' env TRANSPO_C4_MPI_HELP=0 "${mpirun_[@]}" -np 5 "$mpi" --threads 4 $w
    run "mpi17 $strength r$round" 120 '-' "${mpirun_[@]}" -np 17 "$mpi" --threads 1 $w
    run "mpi17 $strength guess16 r$round" 120 '-' env TRANSPO_C4_MPI_GUESS=16 \
      "${mpirun_[@]}" -np 17 "$mpi" --threads 1 $w
  done
done
# Where the time goes: one worker of 16 lanes against one process of 16 threads; 16 workers
# guessing with two children before a release; fewer speculative jobs (three children before
# a release) or bigger ones (jobs of 37 empty squares, not 34), each with the default helping
# rule (cluster::helps); 8 workers x 2 lanes; 16 workers releasing after one child only at
# the nodes that need all, else after two (ALONE_ALL=1 ALONE=2: fewer positions
# oversubscribed, slower in cluster::simulate), alone and guessing. What those runs gave
# before is in docs/connect4/mpi.md, 2026-11-29.
for strength in weak strong; do
  w=; [ $strength = weak ] && w=--weak
  run "mpi2x16 $strength" 60 '-' "${mpirun_[@]}" -np 2 "$mpi" --threads 16 $w
  run "mpi17 $strength guess16 alone2" 120 '-' env TRANSPO_C4_MPI_GUESS=16 TRANSPO_C4_MPI_ALONE=2 \
    "${mpirun_[@]}" -np 17 "$mpi" --threads 1 $w
  run "mpi17 $strength all1 alone2" 120 '-' env TRANSPO_C4_MPI_ALONE_ALL=1 TRANSPO_C4_MPI_ALONE=2 \
    "${mpirun_[@]}" -np 17 "$mpi" --threads 1 $w
  run "mpi17 $strength guess16 all1 alone2" 120 '-' env TRANSPO_C4_MPI_GUESS=16 \
    TRANSPO_C4_MPI_ALONE_ALL=1 TRANSPO_C4_MPI_ALONE=2 "${mpirun_[@]}" -np 17 "$mpi" --threads 1 $w
  run "mpi3x8 $strength alone3" 60 '-' env TRANSPO_C4_MPI_ALONE=3 "${mpirun_[@]}" -np 3 "$mpi" --threads 8 $w
  run "mpi3x8 $strength leaf37" 60 '-' env TRANSPO_C4_MPI_LEAF=37 "${mpirun_[@]}" -np 3 "$mpi" --threads 8 $w
  run "mpi5x4 $strength alone3" 60 '-' env TRANSPO_C4_MPI_ALONE=3 "${mpirun_[@]}" -np 5 "$mpi" --threads 4 $w
  run "mpi9x2 $strength" 60 '-' "${mpirun_[@]}" -np 9 "$mpi" --threads 2 $w
done
run "stein16 weak" 60 '' "$s/weak7x6_16"
run "stein16 strong" 90 '' "$s/strong7x6_16"
# The hardware's own limit: sixteen one-thread solvers at once, each with its own table,
# against one alone (4 Begin-Hard lines each).
run "alone BH4" 60 '' "$c4" bench "$bh" --limit 4 --threads 1
l=$(left)
if [ "$l" -gt 30 ]; then
  s0=$(date +%s%N)
  for i in $(seq 16); do timeout 60 "$c4" bench "$bh" --limit 4 --threads 1 >"$out/many$i.txt" 2>&1 & done
  wait; e0=$(date +%s%N)
  log "sixteen BH4 at once $(( (e0 - s0) / 1000000 )) ms | $(grep -h 'Begin-Hard\|Test_L1_R3' "$out"/many*.txt | head -1)"
  cat "$out"/many*.txt >>"$out/full.txt"; rm -f "$out"/many*.txt
fi
# The threads' scaling, if time is left: 20 Begin-Hard lines at 1, 2, 4, 8, 16 threads.
run "bench BH20" 200 '' "$c4" bench "$bh" --limit 20 --threads 1,2,4,8,16
log "done after $(( $(date +%s) - start )) s"
