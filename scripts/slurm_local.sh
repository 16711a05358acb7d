#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for testing `ibfsim sweep --slurm` (tests/slurm): as
# root on Debian 12, installs slurm-wlm and munge if missing, writes /etc/slurm/slurm.conf for this
# host alone (every CPU, no cgroups: it runs in containers too), and starts munged, slurmctld and
# slurmd unless they run. Idempotent: a second call changes nothing and returns at once.
#   bash scripts/slurm_local.sh          # set up and start
#   bash scripts/slurm_local.sh --stop   # stop the daemons it started
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "slurm_local.sh: run as root (it writes /etc/slurm and starts daemons)" >&2; exit 1; }

if [ "${1:-}" = "--stop" ]; then
  for d in slurmd slurmctld munged; do
    pid_file=/run/ibfsim-slurm/$d.pid
    if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then kill "$(cat "$pid_file")"; fi
    rm -f "$pid_file"
  done
  exit 0
fi

missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/ibfsim-slurm /run/munge
chown slurm:slurm /var/spool/slurmctld /var/log/slurm
chown munge:munge /run/munge
conf=$(cat <<CONF
# Written by ibfsim's scripts/slurm_local.sh: a one-node cluster for tests.
ClusterName=ibfsim
SlurmctldHost=$host
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/ibfsim-slurm/slurmctld.pid
SlurmdPidFile=/run/ibfsim-slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmdTimeout=300
InactiveLimit=0
MinJobAge=300
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
)
if [ ! -f /etc/slurm/slurm.conf ] || [ "$(cat /etc/slurm/slurm.conf)" != "$conf" ]; then
  printf '%s\n' "$conf" > /etc/slurm/slurm.conf
fi

running() { [ -f "/run/ibfsim-slurm/$1.pid" ] && kill -0 "$(cat "/run/ibfsim-slurm/$1.pid")" 2>/dev/null; }
if ! running munged; then
  [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
  runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid --force
  cp /run/munge/munged.pid /run/ibfsim-slurm/munged.pid
fi
running slurmctld || /usr/sbin/slurmctld
running slurmd || /usr/sbin/slurmd
# Wait until the node takes jobs.
for _ in $(seq 1 60); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
  case "$state" in idle|mixed|allocated) echo "slurm: node $host $state ($cpus CPUs)"; exit 0 ;; esac
  scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
  sleep 1
done
echo "slurm_local.sh: the node did not come up; see /var/log/slurm/" >&2
exit 1
