#!/bin/bash
# Stop the single-node Slurm started by up.sh (slurmd, slurmctld, munged); state under $SLURM_DIR is kept.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLURM_DIR=${SLURM_DIR:-$HERE/../../.slurm}
[[ -d $SLURM_DIR ]] || { echo "slurm-down: nothing to stop ($SLURM_DIR missing)" >&2; exit 0; }
SLURM_DIR=$(cd "$SLURM_DIR" && pwd)

stop() {  # stop NAME PIDFILE: SIGTERM, then SIGKILL after 10 s
  local name=$1 pidfile=$2 pid
  [[ -s $pidfile ]] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    echo "slurm-down: stopped $name ($pid)" >&2
  fi
  rm -f "$pidfile"
}
stop slurmd "$SLURM_DIR/run/slurmd.pid"
stop slurmctld "$SLURM_DIR/run/slurmctld.pid"
stop munged "$SLURM_DIR/munge/munged.pid"
