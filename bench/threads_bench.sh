#!/bin/sh
# Wall and CPU time of whole `ibfsim run`s at several --threads (docs/architecture.md,
# "Partitions"), one line per run and the ratios to the first thread count, all in one invocation
# so that they share the machine's load. Figures only: nothing passes or fails on time.
#
#   bench/threads_bench.sh IBFSIM SCENARIO [THREADS...]     (THREADS default: 1 2)
#
# cpu_s is user + system time of the process (every thread), wall_s its elapsed time, both from
# /usr/bin/time: the whole run (building the fabric, bring-up, traffic, results). For the traffic
# phase alone see bench/scale_bench.cpp.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 IBFSIM SCENARIO [THREADS...]" >&2
  exit 2
fi
ibfsim=$1
scenario=$2
shift 2
[ $# -gt 0 ] || set -- 1 2
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
first_wall=
first_cpu=
for t in "$@"; do
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 /usr/bin/time -f "%e %U %S" -o "$out/time" \
    "$ibfsim" run "$scenario" -o "$out/run$t" --threads "$t" > "$out/log" 2>&1 ||
    { cat "$out/log" >&2; exit 1; }
  read -r wall user sys < "$out/time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  [ -n "$first_wall" ] || { first_wall=$wall; first_cpu=$cpu; }
  parts=$(grep -o 'partitions: [0-9]*' "$out/log" | head -n 1 | cut -d' ' -f2)
  awk -v n="$(basename "$scenario")" -v t="$t" -v p="$parts" -v c="$cpu" -v w="$wall" -v fw="$first_wall" \
    -v fc="$first_cpu" 'BEGIN { printf "scenario=%s threads=%s partitions=%s cpu_s=%.2f wall_s=%.2f speedup=%.2f cpu_ratio=%.2f\n", n, t, p, c, w, fw / w, c / fc }'
done
