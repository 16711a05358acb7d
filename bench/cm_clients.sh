#!/bin/sh
# Many RDMA CM clients connecting to one server at the same instant (docs/scenario.md,
# "Connection management"): writes a leaf-spine fabric with enough hosts and a scenario of
# CLIENTS `connect: cm` SEND flows into one server's SRQ, runs it, and prints one key=value line:
# the time to all connected and the CM's counts (REQs, MRAs, REJs, resends), the run's wall and
# CPU time. Figures only: nothing passes or fails here.
#
#   bench/cm_clients.sh IBFSIM [CLIENTS] [CM_PROCESSING] [SA_TIMEOUT]   (defaults: 1000 clients, 1us, 2ms:
#   librdmacm applications give rdma_resolve_route seconds; cm.sa_timeout's default, 100us, is
#   too short for a thousand queries queued at one SA)
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 IBFSIM [CLIENTS] [CM_PROCESSING] [SA_TIMEOUT]" >&2
  exit 2
fi
ibfsim=$1
clients=${2:-1000}
processing=${3:-1us}
sa_timeout=${4:-2ms}
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# 16 hosts per leaf, 16 spines: enough leaves for the server (h1 runs the SM, h2 serves) and every client.
leaves=$(( (clients + 2 + 15) / 16 ))
cat > "$out/topology.yaml" <<TOPO
defaults:
  link: {speed: EDR, width: 4x, length: 2m}
generate: {kind: leaf_spine, leaves: $leaves, spines: 16, hosts_per_leaf: 16}
TOPO
{
  echo "topology: topology.yaml"
  echo "seed: 1"
  echo "cm: {processing: $processing, sa_timeout: $sa_timeout}"
  echo "shared_receive_queue: {max_wr: 4096, limit: 256}"
  echo "workload:"
  i=0
  while [ "$i" -lt "$clients" ]; do
    h=$((i + 3))
    echo "  - {name: c$h, transport: rc, verb: send, from: h$h, to: h2, message_size: 4096, iterations: 4, tx_depth: 4, connect: cm, srq: true}"
    i=$((i + 1))
  done
} > "$out/scenario.yaml"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 /usr/bin/time -f "%e %U %S %M" -o "$out/time" \
  "$ibfsim" run "$out/scenario.yaml" -o "$out/run" > "$out/log" 2>&1 || { cat "$out/log" >&2; exit 1; }
read -r wall user sys rss < "$out/time"
python3 - "$out/run/results.json" "$clients" "$wall" "$user" "$sys" "$rss" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cm = r["connection_management"]
c = cm["connections"]
sent = cm["cm"]["sent"]
print(f"clients={sys.argv[2]} established={c['established']} rejected={c['rejected']} timed_out={c['timed_out']} "
      f"pending={c['pending']} no_path={c['no_path']} req_sent={sent['req']} mra_sent={sent['mra']} rej_sent={sent['rej']} "
      f"dreq_sent={sent['dreq']} retries={cm['cm']['retries']} sa_busy={cm['sa']['busy']} "
      f"all_connected_us={cm.get('all_connected_ns', 0) / 1000:.3f} fabric_up_us={r['phases']['fabric_up_ns'] / 1000:.3f} end_us={r['phases']['end_ns'] / 1000:.3f} "
      f"wall_s={float(sys.argv[3]):.2f} cpu_s={float(sys.argv[4]) + float(sys.argv[5]):.2f} peak_rss_mb={int(sys.argv[6]) // 1024}")
PY
