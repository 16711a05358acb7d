#!/usr/bin/env bash
# Every scenario of scenarios/, as a user runs it, on one rank and across two MPI ranks (one and two
# threads each): the same exit status, the same errors, the same summary figures and, byte for
# byte, the same files. A file two ranks do not write must be one their summary names ("ranks: not
# written across ranks yet: ..."). A scenario a run across ranks refuses (exit 2, "does not
# support ...": what needs one partition, such as a capture) is listed with the reason, refused
# alike at both thread counts. The claim mpi_ranks_test.sh checks quickly on a few, made for all.
# Minutes of CPU: labels long and mpi.
# Usage: mpi_every_scenario_test.sh IBFSIM SCENARIO_DIR WORK_FOLDER. Exit 77 (skipped) without mpirun.
set -euo pipefail
ibfsim=$1 dir=$2 work=$3
if ! command -v mpirun >/dev/null; then
  echo "mpirun not found (openmpi-bin): skipped"
  exit 77
fi
root=()
if [ "$(id -u)" = 0 ]; then root=(--allow-run-as-root); fi
rm -rf "$work"
mkdir -p "$work"
# The summary's figures: every line but those that name the folder or tell how the run was split.
figures() { grep -vE '^(results|report|partitions|wall time|ranks|time series): ' "$1" || true; }
compared=0
refused=0
failed=()
# A failure is reported and the next scenario checked; the test fails at the end if any did.
fail() { echo "FAIL $name: $*"; failed+=("$name"); }
for scenario in "$dir"/*.yaml; do
  name=$(basename "$scenario" .yaml)
  mkdir -p "$work/$name"
  one="$work/$name/one"
  rc1=0
  "$ibfsim" run "$scenario" -o "$one" > "$one.txt" 2> "$one.err" || rc1=$?
  for threads in 1 2; do
    two="$work/$name/two_$threads"
    rc2=0
    mpirun "${root[@]}" --oversubscribe -np 2 "$ibfsim" run "$scenario" -o "$two" --threads "$threads" \
      > "$two.txt" 2> "$two.err" || rc2=$?
    if [ "$rc2" = 2 ] && grep -q "does not support" "$two.err"; then
      echo "$name: refused across ranks: $(grep -o 'does not support.*' "$two.err" | head -1)"
      refused=$((refused + 1))
      continue
    fi
    if [ "$rc2" != "$rc1" ]; then fail "two ranks ($threads threads) exited $rc2, one rank $rc1"; head -5 "$two.err"; continue 2; fi
    if ! diff <(grep '^error: ' "$one.err" || true) <(grep '^error: ' "$two.err" || true); then
      fail "two ranks' errors differ from one rank's"; continue 2
    fi
    if [ "$(figures "$one.txt")" != "$(figures "$two.txt")" ]; then
      fail "two ranks' summary differs ($threads threads a rank)"
      { diff <(figures "$one.txt") <(figures "$two.txt") || true; } | head -20
      grep '^ranks: ' "$two.txt" || true
      continue 2
    fi
    not_written=$(grep '^ranks: not written across ranks yet: ' "$two.txt" || true)
    for f in $(ls "$one"); do
      if [ -e "$two/$f" ]; then
        cmp "$one/$f" "$two/$f" || { fail "$f differs from the one-rank run's ($threads threads)"; continue 3; }
      else
        case "$not_written" in
          *"$f"*) ;;
          *) fail "two ranks did not write $f and do not say so"; continue 3 ;;
        esac
      fi
    done
    for f in $(ls "$two"); do
      [ -e "$one/$f" ] || { fail "two ranks wrote $f, one rank did not"; continue 3; }
    done
    echo "$name ($threads threads a rank): exit $rc2, the same bytes as one rank: $(ls "$two" | tr '\n' ' ')${not_written:+ / $not_written}"
    compared=$((compared + 1))
  done
done
echo "compared $compared runs across two ranks, $refused refused"
[ "$compared" -gt 0 ] || { echo "FAIL: nothing compared"; exit 1; }
[ "${#failed[@]}" = 0 ] || { echo "FAIL: ${failed[*]}"; exit 1; }
echo "ok"
