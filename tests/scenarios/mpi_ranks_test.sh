#!/usr/bin/env bash
# One simulation across two MPI ranks (sim/core/rank_exchange.h) against one rank, at one and at
# two threads per rank: the summary a run across ranks prints must be the one-rank run's (but for
# the lines naming the folder, the partitions and the wall time), and the files rank 0 writes
# (the tables from every rank's rows, sim/core/stats_rank_merge.h; results.json, classes.csv and
# report.html from every rank's tallies, sim/workload/rank_tallies.h) must be the one-rank run's,
# byte for byte. TABLES lists exactly the files the two-rank run must write (a file whose figures
# the ranks disagree on is not written across ranks yet). EXIT (default 0) is the exit status every
# run must end with (4: a PFC deadlock), and each run's error lines must be the one-rank run's.
# SHOWS (optional): extended regular expressions separated by ';', each of which some line
# of the one-rank summary must match (what the scenario is there to exercise).
# Usage: mpi_ranks_test.sh IBFSIM SCENARIO WORK_FOLDER "TABLES" [EXIT] [SHOWS]. Exit 77 (skipped)
# without mpirun.
set -euo pipefail
ibfsim=$1 scenario=$2 work=$3 tables=$4 want_exit=${5:-0} shows=${6:-}
if ! command -v mpirun >/dev/null; then
  echo "mpirun not found (openmpi-bin): skipped"
  exit 77
fi
root=()
if [ "$(id -u)" = 0 ]; then root=(--allow-run-as-root); fi
rm -rf "$work"
mkdir -p "$work"
# The summary's figures: every line but those that name the folder or tell how the run was split.
figures() { grep -vE '^(results|report|partitions|wall time|ranks|time series): ' "$1"; }

rc=0
"$ibfsim" run "$scenario" -o "$work/one" --threads 2 > "$work/one.txt" 2> "$work/one.err" || rc=$?
[ "$rc" = "$want_exit" ] || { echo "FAIL: one rank exited $rc, expected $want_exit"; cat "$work/one.err"; exit 1; }
expected=$(figures "$work/one.txt")
echo "one rank:"
echo "$expected"
cat "$work/one.err"
IFS=';' read -ra patterns <<< "$shows"
for pattern in "${patterns[@]}"; do
  echo "$expected" | grep -qE "$pattern" || { echo "FAIL: the one-rank summary shows nothing matching $pattern"; exit 1; }
done
want=$(echo "$tables" | tr ' ' '\n' | sed '/^$/d' | sort)
for threads in 1 2; do
  out="$work/two_$threads"
  rc=0
  mpirun "${root[@]}" --oversubscribe -np 2 "$ibfsim" run "$scenario" -o "$out" --threads "$threads" \
    > "$out.txt" 2> "$out.err" || rc=$?
  [ "$rc" = "$want_exit" ] || { echo "FAIL: two ranks exited $rc, expected $want_exit"; cat "$out.err"; exit 1; }
  # The errors (a PFC deadlock's message) as one rank says them, once.
  diff <(grep '^error: ' "$work/one.err" || true) <(grep '^error: ' "$out.err" || true) ||
    { echo "FAIL: two ranks' errors differ from one rank's"; exit 1; }
  got=$(figures "$out.txt")
  echo "two ranks, $threads threads each:"
  echo "$got"
  grep '^ranks: ' "$out.txt"
  grep -q '^ranks: 2 MPI ranks' "$out.txt" || { echo "FAIL: no ranks line"; exit 1; }
  # Rank 0 alone speaks.
  [ "$(grep -c '^ibfsim ' "$out.txt")" = 1 ] || { echo "FAIL: more than one rank printed"; exit 1; }
  [ "$got" = "$expected" ] || { echo "FAIL: two ranks disagree with one"; diff <(echo "$expected") <(echo "$got"); exit 1; }
  written=$(ls "$out" | sort)
  [ "$written" = "$want" ] || { echo "FAIL: two ranks wrote [$(echo $written)], expected [$(echo $want)]"; exit 1; }
  for f in $written; do
    cmp "$work/one/$f" "$out/$f" || { echo "FAIL: $f differs from the one-rank run's"; exit 1; }
  done
  echo "the same bytes as one rank: $(echo $written)"
done
echo "ok"
