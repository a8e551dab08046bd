#!/usr/bin/env bash
# Stops the one-node SLURM cluster of scripts/slurm-up.sh and removes its
# directory (default /tmp/hoplab-slurm, or $HOPLAB_SLURM_DIR): cancels its
# jobs, stops slurmd, slurmctld and munged by the pid files up wrote (a pid
# whose process is not that daemon is left alone), then deletes the
# directory. The packages stay installed. Safe to run twice, or when up
# failed half-way.
set -uo pipefail

dir="${HOPLAB_SLURM_DIR:-/tmp/hoplab-slurm}"
conf="$dir/slurm.conf"
log() { echo "slurm-down: $*" >&2; }

[ -d "$dir" ] || { log "nothing to stop ($dir does not exist)"; exit 0; }
# Only a directory slurm-up.sh made is removed (a wrong HOPLAB_SLURM_DIR must not cost files).
if [ -e "$conf" ] && ! grep -q '^# Written by scripts/slurm-up.sh' "$conf"; then
    log "$conf was not written by slurm-up.sh: leaving $dir alone"; exit 1
fi
for f in "$dir"/*; do
    case "${f##*/}" in slurm.conf|slurm.conf.tmp|plugstack.conf|munge|run|state|spool|log|'*') ;;
        *) log "$dir holds ${f##*/}, which slurm-up.sh did not make: leaving it alone"; exit 1 ;;
    esac
done

export SLURM_CONF="$conf"

daemon_pid() {  # the pid in $1 if that process is the daemon $2
    local pid
    [ -s "$1" ] || return 1
    pid="$(cat "$1")"
    [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$2" ] && echo "$pid"
}

# Jobs first, while slurmctld and slurmd can still end them (scancel(1)); their
# processes are the node's, not the daemons' children, and would outlive them.
if [ -e "$conf" ] && daemon_pid "$dir/run/slurmctld.pid" slurmctld >/dev/null; then
    jobs="$(timeout 10 squeue -h -o %i 2>/dev/null)"
    [ -n "$jobs" ] && timeout 10 scancel --quiet $jobs >/dev/null 2>&1
    for _ in $(seq 40); do
        [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.5
    done
fi

stop() {  # stop daemon $2 by its pid file $1: TERM, then KILL after 10 s
    local pid
    pid="$(daemon_pid "$1" "$2")" || return 0
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    log "$2 (pid $pid) ignored SIGTERM: killing it"
    kill -KILL "$pid" 2>/dev/null
}
stop "$dir/run/slurmd.pid" slurmd
stop "$dir/run/slurmctld.pid" slurmctld
stop "$dir/run/munged.pid" munged

rm -rf -- "$dir"
log "down ($dir removed)"
