#!/usr/bin/env bash
# A one-node SLURM cluster on this host, for the `lab run --slurm` tests
# (issue 26): installs slurm-wlm and munge where missing, writes a minimal
# slurm.conf (this host's name, two CPUs) and a munge key into one directory
# of its own, starts munged, slurmctld and slurmd as root, and waits until
# `sinfo` shows the node idle. Everything it creates lives in that directory
# (default /tmp/hoplab-slurm, or $HOPLAB_SLURM_DIR); scripts/slurm-down.sh
# stops the daemons and removes it. Safe to run twice: a cluster that is up
# is left as it is.
#
# Clients find the cluster through SLURM_CONF; the last line of stdout is
#     export SLURM_CONF=DIR/slurm.conf
# so `eval "$(scripts/slurm-up.sh)"` sets it in the calling shell.
# Exit 0 when the node is idle; 1, with one line on stderr saying why, when
# the daemons cannot start here (not root, no apt-get, no network, ...).
set -uo pipefail

dir="${HOPLAB_SLURM_DIR:-/tmp/hoplab-slurm}"
# Ports of a cluster that is not the machine's own (slurm.conf(5) defaults are 6817/6818).
ctld_port="${HOPLAB_SLURM_PORT:-6917}"
node="$(hostname -s)"
conf="$dir/slurm.conf"

fail() { echo "slurm-up: $*" >&2; exit 1; }
log() { echo "slurm-up: $*" >&2; }

[ "$(id -u)" -eq 0 ] || fail "needs root (slurmd runs jobs as their user and must start as root)"

pkgs=()
command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 && command -v sinfo >/dev/null 2>&1 \
    || pkgs+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || pkgs+=(munge)
if [ ${#pkgs[@]} -gt 0 ]; then
    command -v apt-get >/dev/null 2>&1 || fail "missing ${pkgs[*]} and no apt-get to install them"
    log "apt-get install ${pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${pkgs[@]}" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "${pkgs[@]}" >/dev/null 2>&1; } \
        || fail "could not install ${pkgs[*]} with apt-get"
fi

export SLURM_CONF="$conf"

alive() {  # the daemon whose pid file is $1 is running
    [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

idle() {  # the node is up and free (sinfo(1) %t: short state)
    local state
    state="$(timeout 10 sinfo -h -n "$node" -o %t 2>/dev/null | head -n1)"
    [ "$state" = "idle" ]
}

if alive "$dir/run/munged.pid" && alive "$dir/run/slurmctld.pid" && alive "$dir/run/slurmd.pid" && idle; then
    log "already up ($dir)"
    echo "export SLURM_CONF=$conf"
    exit 0
fi

mkdir -p "$dir"
chmod 0700 "$dir"
mkdir -p -m 0700 "$dir/munge" "$dir/run" "$dir/state" "$dir/spool" "$dir/log"

# munge(7): one shared key authenticates every daemon and client; ours, so
# no key of the machine's own is used or changed.
if [ ! -s "$dir/munge/munge.key" ]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none || fail "cannot write a munge key"
    chmod 0400 "$dir/munge/munge.key"
fi
socket="$dir/munge/munge.socket"

mem_mb="$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)"
[ -n "$mem_mb" ] && [ "$mem_mb" -gt 0 ] || mem_mb=1024

# slurm.conf(5), Slurm 22.05. linuxproc/none/cons_tres need no cgroups, which a
# container may not grant; config_overrides: the node's CPUs and memory are
# the ones written here, whatever the hardware (a bigger CI machine too);
# the loopback address: no need for the host's name to resolve.
cat >"$conf.tmp" <<EOF
# Written by scripts/slurm-up.sh: a one-node test cluster; slurm-down.sh removes it.
ClusterName=hoplab
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdParameters=config_overrides
MailProg=/bin/true
PlugStackConfig=$dir/plugstack.conf
# Quick turnaround for tests: a killed job's node is free again at once.
KillWait=2
MinJobAge=5
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
mv "$conf.tmp" "$conf"
: >"$dir/plugstack.conf"

if ! alive "$dir/run/munged.pid"; then
    # --force: /tmp is world-writable (sticky), which munged refuses otherwise.
    munged --force --socket="$socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/run/munged.pid" \
        --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" 2>"$dir/log/munged.err" \
        || fail "munged did not start: $(tail -n1 "$dir/log/munged.err")"
fi
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || fail "munged did not create $socket"

if ! alive "$dir/run/slurmctld.pid"; then
    # -c: a clean start, no state of an earlier cluster in this directory.
    slurmctld -c -f "$conf" 2>"$dir/log/slurmctld.err" \
        || fail "slurmctld did not start: $(tail -n1 "$dir/log/slurmctld.err" "$dir/log/slurmctld.log" 2>/dev/null | tail -n1)"
fi
if ! alive "$dir/run/slurmd.pid"; then
    slurmd -f "$conf" 2>"$dir/log/slurmd.err" \
        || fail "slurmd did not start: $(tail -n1 "$dir/log/slurmd.log" 2>/dev/null)"
fi

for i in $(seq 120); do
    if idle; then
        log "up: node $node idle ($dir)"
        echo "export SLURM_CONF=$conf"
        exit 0
    fi
    # A node left down or drained by an earlier cluster: ask for it back.
    [ $((i % 10)) -eq 0 ] && scontrol update nodename="$node" state=resume >/dev/null 2>&1
    sleep 0.5
done
fail "node $node not idle after 60 s: $(sinfo -h -o '%n %t %E' 2>&1 | head -n1); logs in $dir/log"
