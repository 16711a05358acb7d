#!/usr/bin/env bash
# `ibfsim sweep --slurm` on a real Slurm: a one-node cluster on this machine (scripts/slurm_local.sh,
# as root), a three-point sweep submitted as the job array the sweep wrote, waited for, collected;
# its curve.csv and saturation.json must be byte for byte those of the same sweep run with -j 2.
#   tests/slurm/slurm_sweep_test.sh IBFSIM SOURCE_DIR OUT_DIR     (ctest -L slurm)
set -euo pipefail
ibfsim=$1 src=$2 out=$3
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
bash "$src/scripts/slurm_local.sh"
rm -rf "$out" && mkdir -p "$out"
sweep=("$src/tests/scenarios/data/sweep_uniform.yaml" --set workload.load=0.2,0.6,1.0)
start=$(date +%s)
"$ibfsim" sweep "${sweep[@]}" --slurm --slurm-time 0:10:00 --slurm-mem 1G -o "$out/slurm" > "$out/submit.txt"
grep -qx "sbatch $out/slurm/sweep.sbatch" "$out/submit.txt"
sbatch --wait "$out/slurm/sweep.sbatch"
"$ibfsim" collect "$out/slurm"
echo "slurm: submitted, ran and collected in $(( $(date +%s) - start )) s"
"$ibfsim" sweep "${sweep[@]}" -j 2 -o "$out/local" > /dev/null 2>&1
cmp "$out/slurm/curve.csv" "$out/local/curve.csv"
cmp "$out/slurm/saturation.json" "$out/local/saturation.json"
for p in 0 1 2; do grep -q '^results: ' "$out/slurm/points/p000$p/run.log"; done
echo "slurm: curve.csv identical to the -j 2 sweep's:"
cat "$out/slurm/curve.csv"
