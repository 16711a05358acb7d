#!/usr/bin/env bash
# Seeds for the fuzz targets of text inputs, from the repository's own files:
#   make_text_seeds.sh SOURCE_DIR SEED_DIR IBFSIM
# scenario_yaml: scenarios/*.yaml and tests/scenarios/data/*.yaml; topology_yaml: topologies/ and
# the golden fabrics' topology.yaml; ibnetdiscover and ibsim_net: topologies/examples/, the golden
# fabrics' topology.net and what `ibfsim topo` converts the small topologies to; lft_dump: the
# golden OpenSM dumps; guid_list: the golden root and compute-node GUID files and guid2lid caches;
# set_values: --set lines from the documentation's examples; result_table: the tables of two short
# runs, plain and compressed; otf2_trace: each file of scenarios/traces/ring_allreduce after the byte
# that names it (fuzz/otf2_trace.cpp's order).
set -euo pipefail
src=$1 seeds=$2 ibfsim=$3
rm -rf "$seeds/scenario_yaml" "$seeds/topology_yaml" "$seeds/ibnetdiscover" "$seeds/ibsim_net" "$seeds/lft_dump" \
  "$seeds/guid_list" "$seeds/set_values" "$seeds/result_table" "$seeds/otf2_trace"
mkdir -p "$seeds"/{scenario_yaml,topology_yaml,ibnetdiscover,ibsim_net,lft_dump,guid_list,set_values,result_table,otf2_trace}
cp "$src"/scenarios/*.yaml "$src"/tests/scenarios/data/*.yaml "$seeds/scenario_yaml/"
cp "$src"/topologies/*.yaml "$seeds/topology_yaml/"
for d in "$src"/tests/subnet_manager/golden/*/; do
  name=$(basename "$d")
  if [ -f "$d/topology.yaml" ]; then cp "$d/topology.yaml" "$seeds/topology_yaml/golden_$name.yaml"; fi
  if [ -f "$d/topology.net" ]; then cp "$d/topology.net" "$seeds/ibsim_net/golden_$name.net"; fi
  for r in "$d"*/; do
    run=$(basename "$r")
    if [ -f "$r/opensm-lfts.dump" ]; then cp "$r/opensm-lfts.dump" "$seeds/lft_dump/${name}_$run.dump"; fi
    for g in root_guids.txt cn_guids.txt guid2lid; do
      if [ -f "$r/$g" ]; then cp "$r/$g" "$seeds/guid_list/${name}_${run}_$g"; fi
    done
  done
done
cp "$src"/topologies/examples/*.ibnetdiscover "$seeds/ibnetdiscover/"
cp "$src"/topologies/examples/*.ibsim "$seeds/ibsim_net/"
for t in two_hosts two_switches quickstart fat_tree_16 mixed_speeds hypercube_4d dragonfly_72; do
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$ibfsim" topo "$src/topologies/$t.yaml" \
    --ibnetdiscover "$seeds/ibnetdiscover/$t.ibnd" --ibsim "$seeds/ibsim_net/$t.net" > /dev/null
done
n=0
for line in 'workload.load=0.9' 'phases.measure=5us' 'workload.message_size=512' 'seed=42' \
            'workload.load=0.1:0.95:0.05' 'link.mtu=2048,4096' 'subnet_manager.routing=updn' \
            'outputs={pcap: true}' 'workload=[{pattern: uniform}, {pattern: shift, shift: 3}]' \
            'faults=[{at: 1us, link: sw1/1, state: down}]'; do
  printf '%s\n' "$line" > "$seeds/set_values/set_$n"
  n=$((n + 1))
done
printf 'workload.load=0.9\nphases.warmup=1us\nphy.mode=bit_exact\n' > "$seeds/set_values/set_multi"
for compress in false true; do
  out="$seeds/result_table/run_$compress"
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$ibfsim" run "$src/scenarios/quickstart.yaml" -o "$out" \
    --set phases.measure=5us --set outputs.compress=$compress > /dev/null
  for f in "$out"/*.csv "$out"/*.csv.zst; do
    if [ -f "$f" ]; then cp "$f" "$seeds/result_table/${compress}_$(basename "$f")"; fi
  done
  rm -rf "$out"
done
n=0
for f in traces.otf2 traces.def traces/0.def traces/0.evt traces/1.def traces/1.evt traces/2.def traces/2.evt \
         traces/3.def traces/3.evt; do
  { printf "\\$(printf '%03o' $n)"; cat "$src/scenarios/traces/ring_allreduce/$f"; } > "$seeds/otf2_trace/file_$n"
  n=$((n + 1))
done
