#!/usr/bin/env bash
# One simulation across two MPI ranks (sim/core/rank_exchange.h) against one rank: the figures a
# run across ranks prints (the simulated time and the packet ledger, reduced across the ranks)
# must be those of the one-rank run, at one and at two threads per rank.
# Usage: mpi_ranks_test.sh IBFSIM SCENARIO WORK_FOLDER. Exit 77 (skipped) without mpirun.
set -euo pipefail
ibfsim=$1 scenario=$2 work=$3
if ! command -v mpirun >/dev/null; then
  echo "mpirun not found (openmpi-bin): skipped"
  exit 77
fi
root=()
if [ "$(id -u)" = 0 ]; then root=(--allow-run-as-root); fi
rm -rf "$work"
mkdir -p "$work"
figures() { grep -E '^(simulated|packets): ' "$1"; }

"$ibfsim" run "$scenario" -o "$work/one" --threads 2 > "$work/one.txt"
expected=$(figures "$work/one.txt")
echo "one rank:"
echo "$expected"
for threads in 1 2; do
  mpirun "${root[@]}" --oversubscribe -np 2 "$ibfsim" run "$scenario" -o "$work/two" --threads "$threads" \
    > "$work/two_$threads.txt"
  got=$(figures "$work/two_$threads.txt")
  echo "two ranks, $threads threads each:"
  echo "$got"
  grep -q '^ranks: 2 MPI ranks' "$work/two_$threads.txt" || { echo "FAIL: no ranks line"; exit 1; }
  # Rank 0 alone speaks.
  [ "$(grep -c '^ibfsim ' "$work/two_$threads.txt")" = 1 ] || { echo "FAIL: more than one rank printed"; exit 1; }
  [ "$got" = "$expected" ] || { echo "FAIL: two ranks disagree with one"; exit 1; }
done
echo "ok"
