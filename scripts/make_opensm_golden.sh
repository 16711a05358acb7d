#!/usr/bin/env bash
# Regenerates tests/subnet_manager/golden/: LIDs and unicast forwarding tables computed by the REAL
# OpenSM (Debian's opensm 3.3.x) on fabrics simulated by OFED's ibsim, for ibfsim's own subnet
# manager to be compared against. See tests/subnet_manager/golden/README.md.
#
# Usage: scripts/make_opensm_golden.sh [TOPOLOGY...]    (default: all of them)
#   IBFSIM=path/to/ibfsim to use a given binary (default build/ibfsim, built if missing).
#   RUNS=REGEX regenerates only the runs whose name matches (the topology's folder and its other
#   runs are kept as they are; the topology files must exist already).
#
# For each topology: a generator YAML is exported to an ibsim net file with `ibfsim topo --ibsim`,
# then adjusted (see fix_net below). For each run: a private ibsim is started on the net file
# (its own abstract socket name), OpenSM runs once (-o) through libumad2sim.so attached to HCA h1
# (or another SM host), with a private config file and cache/dump directories in a temporary
# folder (nothing in /etc or /var is read or written), the LFTs are read back from ibsim with
# dump_lfts, ibsim is stopped, and scripts/check_opensm_golden.py checks the result (check.txt).
# Kept per run: opensm-lfts.dump, guid2lid, opensm.log, opensm.conf, command.txt, check.txt and,
# for updn, root_guids.txt (when named) and opensm-updn-roots.dump, for ftree
# opensm-ftree-ca-order.dump and root_guids.txt / cn_guids.txt when given, with QoS on
# opensm-sl2vl.dump, and for the engines that give paths SLs path-sls.txt (see run). Any failure stops the
# script (exit 1). A topology's folder is rebuilt from scratch. scripts/opensm_model.py then checks
# our description of OpenSM against it all.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/tests/subnet_manager/golden
CHECK=$ROOT/scripts/check_opensm_golden.py
IBFSIM=${IBFSIM:-$ROOT/build/ibfsim}

die() { echo "make_opensm_golden: ERROR: $*" >&2; exit 1; }

# ---- prerequisites ---------------------------------------------------------------------------
for tool in opensm ibsim dump_lfts ibnetdiscover ibroute python3 timeout; do
  command -v "$tool" >/dev/null || die "$tool not found (run scripts/bootstrap.sh)"
done
UMAD2SIM=$(dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim\.so$' | head -n1 || true)
if [ -z "$UMAD2SIM" ] || [ ! -f "$UMAD2SIM" ]; then die "libumad2sim.so not found (package libumad2sim0)"; fi
if [ ! -x "$IBFSIM" ]; then
  echo "building ibfsim..."
  cmake -S "$ROOT" -B "$ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" >/dev/null
  cmake --build "$ROOT/build" --target ibfsim >/dev/null
fi
[ -x "$IBFSIM" ] || die "no ibfsim binary at $IBFSIM"
OPENSM_VERSION=$(dpkg-query -W -f='${Version}' opensm)
IBSIM_VERSION=$(dpkg-query -W -f='${Version}' ibsim-utils)
DIAGS_VERSION=$(dpkg-query -W -f='${Version}' infiniband-diags)

# ---- cleanup -----------------------------------------------------------------------------------
IBSIM_PID=
TMPDIRS=()
OSM_PID=
cleanup() {
  if [ -n "$OSM_PID" ] && kill -0 "$OSM_PID" 2>/dev/null; then
    kill "$OSM_PID" 2>/dev/null || true
    wait "$OSM_PID" 2>/dev/null || true
  fi
  if [ -n "$IBSIM_PID" ] && kill -0 "$IBSIM_PID" 2>/dev/null; then
    kill "$IBSIM_PID" 2>/dev/null || true
    wait "$IBSIM_PID" 2>/dev/null || true
  fi
  IBSIM_PID=
  for d in "${TMPDIRS[@]}"; do rm -rf "$d"; done
}
trap cleanup EXIT
trap 'echo "make_opensm_golden: interrupted" >&2; exit 1' INT TERM

# ---- topologies --------------------------------------------------------------------------------
# fix_net RAW NET: ibfsim's default GUIDs used to be 0x0002c90300000000 + node index + 1 for every
# node, and ibsim (like ConnectX) gives HCA port p the GUID node GUID + p. So the last HCA's port 1
# GUID equalled the first switch's GUID (= its port 0 GUID): a duplicate port GUID that OpenSM
# reports (ERR 0D15) and resolves by dropping one of the ports. Such HCA GUIDs (below
# 0x0002c90301000000) are moved up by 0x01000000 (HCA i of a generator gets node GUID
# 0x0002c90301000000 + i, port 1 GUID that + 1); switch GUIDs stay ibfsim's. ibfsim now gives HCAs
# exactly these GUIDs itself (sim/fabric/topology.h, default_guid), so its output passes unchanged
# and the stored net files come out byte for byte the same (the header line is kept as it was for
# that reason). We also turn every "lid N" of the comments into "lid 0": ibsim 0.10 reads them
# and would start the ports with those LIDs (ibfsim's pre-SM LIDs), which OpenSM then keeps. With
# LID 0 every port starts unconfigured, as after a power-up, and the LIDs are OpenSM's own choice.
# (Dropping "lid N" altogether makes ibsim warn that it cannot parse the comment's link rate.)
fix_net() {
  python3 - "$1" "$2" <<'EOF'
import re, sys
raw, net = sys.argv[1], sys.argv[2]
out = ["# Adjusted by scripts/make_opensm_golden.sh (fix_net): HCA GUIDs + 0x01000000, every LID 0.\n"]
for line in open(raw):
    m = re.match(r"caguid=(0x[0-9a-fA-F]+)\s*$", line)
    if m:
        guid = int(m.group(1), 16)
        line = "caguid=0x%016x\n" % (guid + 0x01000000 if guid < 0x0002c90301000000 else guid)
    line = re.sub(r" lid \d+", " lid 0", line)
    out.append(line)
open(net, "w").writelines(out)
EOF
}

# topology NAME YAML: writes OUT/NAME/topology.yaml and OUT/NAME/topology.net.
topology() {
  local name=$1 yaml=$2 dir=$OUT/$1
  if [ -n "${RUNS:-}" ]; then
    [ -f "$dir/topology.net" ] || die "RUNS given but $dir/topology.net does not exist"
    echo "== $name (kept)"
    return
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  printf '%s\n' "$yaml" > "$dir/topology.yaml"
  local tmp; tmp=$(mktemp -d); TMPDIRS+=("$tmp")
  (cd "$dir" && "$IBFSIM" topo topology.yaml --ibsim "$tmp/raw.net" > "$tmp/topo.out") \
    || die "ibfsim topo failed for $name: $(cat "$tmp/topo.out")"
  fix_net "$tmp/raw.net" "$dir/topology.net"
  # ibfsim must read the adjusted file back (the later tests load it).
  "$IBFSIM" topo "$dir/topology.net" > "$tmp/topo2.out" || die "ibfsim cannot read $dir/topology.net"
  echo "== $name: $(grep -E '^(hosts|switches):' "$tmp/topo.out" | tr '\n' ' ')"
}

# run TOPO RUN ENGINE LMC ROOTS CHECKFLAGS [SM_HOST] [CNS]: one OpenSM run; output in OUT/TOPO/RUN/.
#   ROOTS: '' or a regex of switch names whose GUIDs go into root_guids.txt (root_guid_file).
#   CNS: '' or a regex of HCA names whose port 1 GUIDs go into cn_guids.txt (cn_guid_file, ftree's
#   compute nodes; the other HCAs are not).
#   SM_HOST: the node OpenSM runs on (ibsim's SIM_HOST), h1 unless given: an HCA (its port 1), or a
#   switch (its management port 0, as on a managed switch).
run() {
  local topo=$1 runname=$2 engine=$3 lmc=$4 roots=$5 checkflags=$6 SM_HOST=${7:-h1} cns=${8:-}
  local net=$OUT/$topo/topology.net dir=$OUT/$topo/$runname
  if [ -n "${RUNS:-}" ] && ! [[ $runname =~ ^($RUNS)$ ]]; then return; fi
  local conf=${RUN_CONF:-} sls=${RUN_SLS:-}
  local tmp; tmp=$(mktemp -d); TMPDIRS+=("$tmp")
  mkdir -p "$tmp/cache" "$tmp/dump"
  rm -rf "$dir"; mkdir -p "$dir"

  local rootline="root_guid_file (null)"
  if [ -n "$roots" ]; then
    # Switch GUIDs are on the switchguid= line before each "Switch" header.
    awk -v re="^\"($roots)\"\$" '/^switchguid=/{g=substr($1,12)} /^Switch/{ if ($3 ~ re) print g }' \
      "$net" > "$dir/root_guids.txt"
    [ -s "$dir/root_guids.txt" ] || die "$topo/$runname: no switch matches roots '$roots'"
    cp "$dir/root_guids.txt" "$tmp/root_guids.txt"
    rootline="root_guid_file $tmp/root_guids.txt"
  fi
  local cnline=""  # with its newline, so that runs without one keep their config byte for byte
  if [ -n "$cns" ]; then
    # HCA port 1 GUIDs: the caguid= line before each "Hca" header, plus 1.
    awk -v re="^\"($cns)\"\$" '/^caguid=/{g=substr($1,8)} /^Hca/{ if ($3 ~ re) print g }' "$net" \
      | python3 -c 'import sys; [print("0x%016x" % (int(l, 16) + 1)) for l in sys.stdin.read().split()]' \
      > "$dir/cn_guids.txt"
    [ -s "$dir/cn_guids.txt" ] || die "$topo/$runname: no HCA matches compute nodes '$cns'"
    cp "$dir/cn_guids.txt" "$tmp/cn_guids.txt"
    cnline="cn_guid_file $tmp/cn_guids.txt"$'\n'
  fi

  # The private config: every path inside $tmp. Stored in the golden dir with $tmp as RUNDIR.
  cat > "$tmp/opensm.conf" <<EOF
# OpenSM config for ibfsim golden run $topo/$runname (scripts/make_opensm_golden.sh).
routing_engine $engine
lmc $lmc
$rootline
${cnline}sweep_interval 0
reassign_lids FALSE
log_flags 0x43
force_log_flush TRUE
accum_log_file FALSE
log_file $tmp/opensm.log
dump_files_dir $tmp/dump
partition_config_file $tmp/partitions.conf
per_module_logging_file $tmp/per-module-logging.conf
prefix_routes_file $tmp/prefix-routes.conf
qos_policy_file $tmp/qos-policy.conf
torus_config $tmp/torus-2QoS.conf
EOF
  # RUN_CONF: more options (e.g. "qos TRUE"), one a line; only runs that name some carry them.
  if [ -n "$conf" ]; then printf '%s\n' "$conf" >> "$tmp/opensm.conf"; fi
  # RUN_SLS=dfsssp: dfsssp's own debug messages (its path-to-VL table) and nothing else's.
  if [ "$sls" = dfsssp ]; then echo "osm_ucast_dfsssp.c 0x08" > "$tmp/per-module-logging.conf"; fi
  sed "s|$tmp|RUNDIR|g" "$tmp/opensm.conf" > "$dir/opensm.conf"

  # Private ibsim on an abstract unix socket of our own.
  local sock="ibfsim-golden-$$-$RANDOM"
  IBSIM_SOCKNAME=$sock ibsim -n -s "$net" > "$tmp/ibsim.out" 2>&1 &
  IBSIM_PID=$!

  for _ in $(seq 100); do
    grep -qs "Network simulator ready." "$tmp/ibsim.out" && break
    kill -0 "$IBSIM_PID" 2>/dev/null || die "$topo/$runname: ibsim died: $(cat "$tmp/ibsim.out")"
    sleep 0.1
  done
  grep -q 'Network simulator ready.' "$tmp/ibsim.out" || die "$topo/$runname: ibsim not ready after 10 s"
  ! grep -qiE 'warn|error|panic' "$tmp/ibsim.out" || die "$topo/$runname: ibsim complained: $(cat "$tmp/ibsim.out")"

  local simenv=(env IBSIM_SOCKNAME="$sock" SIM_HOST="$SM_HOST" LD_PRELOAD="$UMAD2SIM"
                OSM_CACHE_DIR="$tmp/cache" OSM_TMP_DIR="$tmp/dump")
  local rc=0
  if [ "$sls" = saquery ] || [ "$sls" = saquery-switches ]; then
    # OpenSM stays up as the SA, to be asked for path records one (SLID, DLID) pair at a time
    # (through ibsim, multi-record GetTable answers come back truncated), then is stopped.
    (cd "$tmp" && exec "${simenv[@]}" timeout 3600 opensm -F "$tmp/opensm.conf") > "$tmp/opensm.stdout" 2>&1 &
    OSM_PID=$!
    for _ in $(seq 600); do
      grep -qs 'SUBNET UP' "$tmp/opensm.log" && break
      kill -0 "$OSM_PID" 2>/dev/null || die "$topo/$runname: opensm exited: $(tail -n 20 "$tmp/opensm.stdout" "$tmp/opensm.log" 2>&1)"
      sleep 0.5
    done
    grep -qs 'SUBNET UP' "$tmp/opensm.log" || die "$topo/$runname: no SUBNET UP after 300 s"
    sleep 2  # the LID cache is stored just after
    query_path_sls "$tmp" "$sls" "${simenv[@]}" > "$tmp/path-sls.txt"
    kill "$OSM_PID"; wait "$OSM_PID" 2>/dev/null || true; OSM_PID=
  else
    (cd "$tmp" && "${simenv[@]}" timeout 300 opensm -F "$tmp/opensm.conf" -o) > "$tmp/opensm.stdout" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || die "$topo/$runname: opensm exited $rc: $(tail -n 20 "$tmp/opensm.stdout" "$tmp/opensm.log" 2>&1)"
  fi
  grep -q 'SUBNET UP' "$tmp/opensm.log" || die "$topo/$runname: no SUBNET UP in the OpenSM log"
  grep -q "osm_ucast_mgr_process: $engine tables configured on all switches" "$tmp/opensm.log" \
    || die "$topo/$runname: '$engine' did not configure the tables (fell back?): $(grep -E 'ERR|ucast_mgr' "$tmp/opensm.log")"
  # With qos TRUE OpenSM looks for a QoS policy file; there is none (ERR AC01), so it uses its
  # default QoS settings, as a stock OpenSM run with -Q and no policy does. Any other ERR stops us.
  if grep ' ERR ' "$tmp/opensm.log" | grep -qv ' ERR AC01: Failed opening QoS policy file '; then
    die "$topo/$runname: OpenSM logged errors: $(grep ' ERR ' "$tmp/opensm.log" | head)"
  fi

  # Read the LFTs back from the simulated switches, as an independent check of the dump.
  rc=0
  (cd "$tmp" && "${simenv[@]}" timeout 300 dump_lfts) > "$tmp/ibroute-lfts.txt" 2> "$tmp/dump_lfts.err" || rc=$?
  [ "$rc" -eq 0 ] || die "$topo/$runname: dump_lfts exited $rc: $(cat "$tmp/dump_lfts.err")"

  kill "$IBSIM_PID"; wait "$IBSIM_PID" 2>/dev/null || true; IBSIM_PID=

  cp "$tmp/dump/opensm-lfts.dump" "$tmp/cache/guid2lid" "$dir/"
  # updn writes the roots it used (named or found), ftree the order it routed the HCAs in.
  for f in opensm-updn-roots.dump opensm-ftree-ca-order.dump opensm-sl2vl.dump; do
    if [ -f "$tmp/dump/$f" ]; then cp "$tmp/dump/$f" "$dir/"; fi
  done
  if [ "$sls" = dfsssp ]; then
    dfsssp_path_sls "$tmp/opensm.log" > "$tmp/path-sls.txt" || die "$topo/$runname: no dfsssp path VLs in the log"
  fi
  if [ -n "$sls" ]; then cp "$tmp/path-sls.txt" "$dir/"; fi
  # The log without its time stamps and thread ids (and debug messages, and the memory addresses
  # nue prints), so regenerating changes nothing.
  sed -E -e 's/^[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [0-9]{6} \[[0-9A-F]+\] //' \
      -e 's/\b0x(7f|5[5-6])[0-9a-f]{10}\b/ADDRESS/g' "$tmp/opensm.log" | grep -v '^0x08 -> ' > "$dir/opensm.log"
  cat > "$dir/command.txt" <<EOF
# ibfsim golden run $topo/$runname: opensm $OPENSM_VERSION, ibsim-utils $IBSIM_VERSION, infiniband-diags $DIAGS_VERSION
# RUNDIR is a fresh temporary folder holding cache/ and dump/; SOCK a private socket name.
IBSIM_SOCKNAME=SOCK ibsim -n -s $topo/topology.net &
IBSIM_SOCKNAME=SOCK SIM_HOST=$SM_HOST LD_PRELOAD=$UMAD2SIM OSM_CACHE_DIR=RUNDIR/cache OSM_TMP_DIR=RUNDIR/dump opensm -F RUNDIR/opensm.conf $([ "${sls#saquery}" != "$sls" ] && echo '&   # stays up as the SA; after SUBNET UP, for every pair of LIDs S != D in the LFTs:
IBSIM_SOCKNAME=SOCK SIM_HOST=$SM_HOST LD_PRELOAD=$UMAD2SIM saquery --src-to-dst S:D   # its sl -> path-sls.txt; then opensm is stopped' || echo '-o')
IBSIM_SOCKNAME=SOCK SIM_HOST=$SM_HOST LD_PRELOAD=$UMAD2SIM dump_lfts > RUNDIR/ibroute-lfts.txt
# kept: RUNDIR/dump/opensm-lfts.dump, RUNDIR/cache/guid2lid, opensm.log (time stamps cut), and
# RUNDIR/dump/opensm-updn-roots.dump or opensm-ftree-ca-order.dump when OpenSM wrote them;
# RUNDIR/ibroute-lfts.txt (the LFTs read back from ibsim) was checked equal to the dump, then dropped.
EOF
  # shellcheck disable=SC2086
  python3 "$CHECK" "$net" "$dir" "$lmc" --sm-host "$SM_HOST" --readback "$tmp/ibroute-lfts.txt" \
    $checkflags > "$tmp/check.out" \
    || die "$topo/$runname: check failed: $(cat "$tmp/check.out")"
  cp "$tmp/check.out" "$dir/check.txt"
  sed "s|^|   $runname: |" "$tmp/check.out"
  rm -rf "$tmp"
}

# query_path_sls TMP MODE ENV...: every (SLID, DLID) pair of the LIDs in the LFT dump, the SL
# OpenSM's SA gives its path record (the routing engine's path_sl), as "SLID DLID SL" lines. MODE
# saquery-switches: only the pairs whose SLID is a switch's (lash's SL depends on the two switches
# only, and a large fabric has too many pairs to ask one by one).
query_path_sls() {
  local tmp=$1 mode=$2; shift 2
  local lids; lids=$(awk '/^0x[0-9a-f]+ /{print $1}' "$tmp/dump/opensm-lfts.dump" | sort -u)
  local sources=$lids
  if [ "$mode" = saquery-switches ]; then
    sources=$(awk '/^0x[0-9a-f]+ 000 /{print $1}' "$tmp/dump/opensm-lfts.dump" | sort -u)
    echo "# The SL OpenSM's SA answers for the path record of every pair of LIDs whose source is a switch (saquery --src-to-dst): SLID DLID SL"
  else
    echo "# The SL OpenSM's SA answers for the path record of every pair of LIDs (saquery --src-to-dst): SLID DLID SL"
  fi
  local s d out sl
  for s in $sources; do
    for d in $lids; do
      [ "$s" = "$d" ] && continue
      out=$("$@" saquery --src-to-dst "$((s)):$((d))" 2>&1) || die "saquery $((s)):$((d)) failed: $out"
      sl=$(printf '%s\n' "$out" | sed -nE 's/^[[:space:]]*sl\.+(0x[0-9a-fA-F]+)$/\1/p')
      [ -n "$sl" ] || die "saquery $((s)):$((d)) gave no SL: $out"
      printf '%s %s %d\n' "$s" "$d" "$((sl))"
    done
  done
}

# dfsssp_path_sls LOG: dfsssp's path-to-VL table after balancing (its debug messages), as
# "SLID DLID SL" or "SLID DLID FIRST-LAST": when balancing gave a layer several VLs, OpenSM's SA
# answers each path record with one of them at random (get_dfsssp_sl), so the golden set is the range.
dfsssp_path_sls() {
  python3 - "$1" <<'EOF'
import re, sys
log = open(sys.argv[1]).read()
avail = int(re.search(r"Virtual Lanes available: (\d+)", log).group(1))
needed = int(re.search(r"Virtual Lanes needed: (\d+)", log).group(1))
routes = [tuple(map(int, m)) for m in re.findall(r"route from src_lid=(\d+) to dest_lid=(\d+) on vl=(\d+)", log)]
if not routes:
    sys.exit(1)
bases = sorted({vl for _, _, vl in routes})
last = {}
if needed < avail:
    # Balancing split the spare VLs among the layers: each layer's VLs run up to the next one's first.
    if len(bases) != needed:
        sys.exit("expected %d layers after balancing, found first VLs %s" % (needed, bases))
    for i, b in enumerate(bases):
        last[b] = (bases[i + 1] if i + 1 < len(bases) else avail) - 1
else:
    last = {b: b for b in bases}
print("# dfsssp's VLs for every pair of LIDs (OpenSM's debug table after balancing): SLID DLID SL, or")
print("# SLID DLID FIRST-LAST where OpenSM answers a path record with one of those SLs at random")
for s, d, vl in sorted(routes):
    print("0x%04x 0x%04x %s" % (s, d, str(vl) if last[vl] == vl else "%d-%d" % (vl, last[vl])))
EOF
}

# ---- what is generated -------------------------------------------------------------------------
ALL=(leaf_spine_4x2x4 leaf_spine_16x8x16 fat_tree_4ary2 fat_tree_4ary3 mesh_3x3 mesh_4x4 torus_4x4 torus_2x4
     ring_6 irregular)
WANT=("$@")
[ ${#WANT[@]} -gt 0 ] || WANT=("${ALL[@]}")

for t in "${WANT[@]}"; do
  case "$t" in
    leaf_spine_4x2x4)
      topology "$t" '# 4 leaves of 4 hosts, 2 spines (2:1 oversubscribed two-level fat tree)
generate: {kind: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 4}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t minhop_lmc1 minhop 1 ''       --minimal-paths
      run $t minhop_lmc2 minhop 2 ''       --minimal-paths
      run $t minhop_sm_h7 minhop 0 ''      --minimal-paths h7
      run $t minhop_sm_leaf2 minhop 0 ''   --minimal-paths leaf2
      run $t minhop_lmc1_sm_spine1 minhop 1 '' --minimal-paths spine1
      run $t updn        updn   0 'spine.*' --minimal-paths
      run $t updn_autoroots updn 0 ''      --minimal-paths
      run $t dnup        dnup   0 ''       --minimal-paths
      run $t sssp        sssp   0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=dfsssp run $t dfsssp      dfsssp 0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=saquery run $t lash lash 0 '' --minimal-paths
      run $t nue         nue    0 ''       ''
      RUN_CONF=$'qos TRUE\nnue_max_num_vls 0' RUN_SLS=saquery run $t nue_vls nue 0 '' ''
      run $t ftree       ftree  0 ''       --minimal-paths
      # Compute nodes 4, 2, 3 and 1 per leaf: the others routed as non-CNs, dummies for the gaps.
      run $t ftree_cn    ftree  0 ''       --minimal-paths h1 'h[1-6]|h9|h10|h11|h13'
      run $t ftree_roots_cn ftree 0 'spine2' --minimal-paths h1 'h[1-6]|h9|h10|h11|h13'
      ;;
    leaf_spine_16x8x16)
      topology "$t" '# 16 leaves of 16 hosts, 8 spines: 280 LIDs, so GUIDs cross a 0x100 boundary
generate: {kind: leaf_spine, leaves: 16, spines: 8, hosts_per_leaf: 16}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t ftree       ftree  0 ''       --minimal-paths
      ;;
    fat_tree_4ary2)
      topology "$t" '# 4-ary 2-tree: 16 hosts, 4 leaves, 4 spines (full bisection)
generate: {kind: fat_tree, k: 4, n: 2}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t updn        updn   0 'spine.*' --minimal-paths
      run $t updn_autoroots updn 0 ''      --minimal-paths
      run $t ftree       ftree  0 ''       --minimal-paths
      ;;
    fat_tree_4ary3)
      topology "$t" '# 4-ary 3-tree: 64 hosts, 16 leaves, 16 spines, 16 cores
generate: {kind: fat_tree, k: 4, n: 3}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t updn        updn   0 'core.*' --minimal-paths
      run $t ftree       ftree  0 ''       --minimal-paths
      run $t ftree_roots ftree  0 'core.*' --minimal-paths
      run $t dnup        dnup   0 ''       --minimal-paths
      run $t sssp        sssp   0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=dfsssp run $t dfsssp      dfsssp 0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=saquery-switches run $t lash lash 0 '' --minimal-paths
      run $t nue         nue    0 ''       ''
      run $t minhop_lmc2 minhop 2 ''       --minimal-paths
      ;;
    mesh_3x3)
      topology "$t" '# 3 x 3 mesh of switches, one host each
generate: {kind: mesh, dims: [3, 3]}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t dor         dor    0 ''       --minimal-paths
      run $t updn        updn   0 'sw1_1'  ''
      run $t dnup        dnup   0 ''       ''
      run $t sssp        sssp   0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=dfsssp run $t dfsssp      dfsssp 0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=saquery run $t lash lash 0 '' --minimal-paths
      run $t nue         nue    0 ''       ''
      RUN_CONF=$'qos TRUE\nnue_max_num_vls 0' RUN_SLS=saquery run $t nue_vls nue 0 '' ''
      ;;
    mesh_4x4)
      topology "$t" '# 4 x 4 mesh of switches, one host each
generate: {kind: mesh, dims: [4, 4]}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t dor         dor    0 ''       --minimal-paths
      run $t updn        updn   0 'sw0_0'  ''
      ;;
    torus_4x4)
      topology "$t" '# 4 x 4 torus of switches, one host each
generate: {kind: torus, dims: [4, 4]}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t dor         dor    0 ''       --minimal-paths
      run $t updn        updn   0 'sw0_0'  ''
      run $t minhop_lmc1 minhop 1 ''       --minimal-paths
      run $t dnup        dnup   0 ''       ''
      run $t sssp        sssp   0 ''       --minimal-paths
      run $t sssp_lmc1   sssp   1 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=dfsssp run $t dfsssp      dfsssp 0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=saquery run $t lash lash 0 '' --minimal-paths
      run $t nue         nue    0 ''       ''
      RUN_CONF=$'qos TRUE\nnue_max_num_vls 0' RUN_SLS=saquery run $t nue_vls nue 0 '' ''
      ;;
    torus_2x4)
      topology "$t" '# 2 x 4 torus of switches, one host each: two parallel cables between the two
# switches of each dimension-0 pair
generate: {kind: torus, dims: [2, 4]}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t dor         dor    0 ''       --minimal-paths
      run $t minhop_lmc1 minhop 1 ''       --minimal-paths
      run $t sssp        sssp   0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=dfsssp run $t dfsssp      dfsssp 0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=saquery run $t lash lash 0 '' --minimal-paths
      run $t nue         nue    0 ''       ''
      RUN_CONF=$'qos TRUE\nnue_max_num_vls 0' RUN_SLS=saquery run $t nue_vls nue 0 '' ''
      ;;
    ring_6)
      topology "$t" '# ring of 6 switches (a 1-dimensional torus), one host each
generate: {kind: torus, dims: [6]}'
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t updn        updn   0 'sw0'    ''
      run $t dnup        dnup   0 ''       ''
      run $t sssp        sssp   0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=dfsssp run $t dfsssp      dfsssp 0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=saquery run $t lash lash 0 '' --minimal-paths
      run $t nue         nue    0 ''       ''
      RUN_CONF=$'qos TRUE\nnue_max_num_vls 0' RUN_SLS=saquery run $t nue_vls nue 0 '' ''
      ;;
    irregular)
      topology "$t" "$(cat <<'YAML'
# Irregular two-level fabric, nodes declared out of order: leaves with 1, 3 and 2 hosts on
# scattered ports, a double cable leafB-spine1, a host on spine2.
defaults: {switch: {ports: 8}}
nodes:
  - {name: spine1, type: switch}
  - {name: leafC, type: switch}
  - {name: h1, type: hca}
  - {name: leafA, type: switch}
  - {name: h2, type: hca}
  - {name: h3, type: hca}
  - {name: leafB, type: switch}
  - {name: h4, type: hca}
  - {name: h5, type: hca}
  - {name: spine2, type: switch}
  - {name: h6, type: hca}
  - {name: h7, type: hca}
cables:
  - {from: leafA/1, to: h3/1}
  - {from: leafA/5, to: spine1/1}
  - {from: leafA/6, to: spine2/1}
  - {from: leafB/1, to: h2/1}
  - {from: leafB/2, to: h4/1}
  - {from: leafB/3, to: h6/1}
  - {from: leafB/5, to: spine1/2}
  - {from: leafB/6, to: spine1/3}
  - {from: leafB/7, to: spine2/2}
  - {from: leafC/2, to: h1/1}
  - {from: leafC/4, to: h5/1}
  - {from: leafC/5, to: spine1/4}
  - {from: leafC/6, to: spine2/3}
  - {from: spine2/8, to: h7/1}
YAML
)"
      run $t minhop      minhop 0 ''       --minimal-paths
      run $t minhop_lmc1 minhop 1 ''       --minimal-paths
      run $t minhop_sm_h4 minhop 0 ''      --minimal-paths h4
      run $t minhop_sm_spine2 minhop 0 ''  --minimal-paths spine2
      run $t updn_sm_leafB updn 0 'spine1' '' leafB
      run $t dor         dor    0 ''       --minimal-paths
      # Root spine1 only: with spine2 a root too, spine1 could not reach h7 (down then up).
      run $t updn        updn   0 'spine1' ''
      # ftree needs the roots named here (h7 on spine2 breaks ranking from the CAs) and h7 left out
      # of the compute nodes (a CN must hang off a leaf).
      # spine1 then has no route to h7: down to a leaf and up to spine2 is no up/down path.
      run $t ftree_roots_cn ftree 0 'spine1|spine2' --allow-unrouted-hcas h1 'h[1-6]'
      run $t dnup        dnup   0 ''       ''
      run $t sssp        sssp   0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=dfsssp run $t dfsssp      dfsssp 0 ''       --minimal-paths
      RUN_CONF="qos TRUE" RUN_SLS=saquery run $t lash lash 0 '' --minimal-paths
      run $t nue         nue    0 ''       ''
      RUN_CONF=$'qos TRUE\nnue_max_num_vls 0' RUN_SLS=saquery run $t nue_vls nue 0 '' ''
      ;;
    *) die "unknown topology $t (known: ${ALL[*]})" ;;
  esac
done
echo "make_opensm_golden: done (opensm $OPENSM_VERSION)"
