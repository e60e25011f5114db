#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests: munged, slurmctld and
# slurmd from Debian's packages, all state under one directory, no systemd.
#   tests/scripts/slurm/local-cluster.sh start DIR [bound]  # prints "export SLURM_CONF=..."
#   tests/scripts/slurm/local-cluster.sh stop DIR
# Runs as root (slurmd needs it). Declares 8 CPUs whatever the core count and
# binds nothing; with `bound`, the machine's own CPUs, and tasks are bound to
# them (task/affinity) as on a production cluster.
set -euo pipefail
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
cpus=8 task_plugin=task/none
if [[ ${3:-} == bound ]]; then
  cpus=$(nproc) task_plugin=task/affinity
fi

stop() {
  for daemon in slurmd slurmctld munged; do
    if [[ -f $dir/$daemon.pid ]]; then
      kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
    fi
  done
  sleep 1
}

start() {
  local host
  host=$(hostname -s)
  mkdir -p "$dir/munge" "$dir/spool" "$dir/state" "$dir/log"
  chmod 755 "$dir/munge"
  mungekey --create --keyfile="$dir/munge/munge.key" --force >/dev/null 2>&1 || \
    mungekey --create --keyfile="$dir/munge/munge.key"
  munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" --force
  cat >"$dir/slurm.conf" <<CONF
ClusterName=strata-test
SlurmctldHost=$host(127.0.0.1)
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=$task_plugin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmix
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
MinJobAge=5
ReturnToService=2
DependencyParameters=kill_invalid_depend
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF"
  slurmd -f "$SLURM_CONF"
  for _ in $(seq 1 30); do
    if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "export SLURM_CONF=$SLURM_CONF"
      return
    fi
    sleep 1
  done
  echo "local-cluster: Slurm did not come up; logs in $dir/log" >&2
  tail -20 "$dir"/log/*.log >&2 || true
  stop
  exit 1
}

case $action in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
