#!/bin/bash
# Start a single-node Slurm (munged, slurmctld, slurmd) on localhost, state under $SLURM_DIR.
# Installs Debian's slurm-wlm and munge when missing (needs root). Idempotent: when everything
# already runs it only checks that the node is up. Prints `export SLURM_CONF=...` at the end.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLURM_DIR=${SLURM_DIR:-$HERE/../../.slurm}
mkdir -p "$SLURM_DIR"
SLURM_DIR=$(cd "$SLURM_DIR" && pwd)
CONF=$SLURM_DIR/slurm.conf
export SLURM_CONF=$CONF
MUNGE=$SLURM_DIR/munge
SOCKET=$MUNGE/run/munge.socket.2
# One start at a time on this machine (two test workers, or a user and a test, may both start it): the second
# waits, then finds it running. apt waits for the dpkg lock too (another apt step may hold it).
exec 9>"${TMPDIR:-/tmp}/autotune-slurm-up.lock"
flock 9

log() { echo "slurm-up: $*" >&2; }
alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
node_state() { sinfo -h -N -o %t 2>/dev/null | head -n1; }

if alive "$MUNGE/munged.pid" && alive "$SLURM_DIR/run/slurmctld.pid" && alive "$SLURM_DIR/run/slurmd.pid" \
   && [[ $(node_state) =~ ^(idle|mix|alloc) ]]; then
  log "already running ($CONF)"
  echo "export SLURM_CONF=$CONF"
  exit 0
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  log "installing slurm-wlm munge (apt)"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq slurm-wlm munge >/dev/null
fi

# munge: key directory 700 and key 400 owned by munge, socket directory world-executable.
id munge >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin munge
mkdir -p "$MUNGE/run" "$MUNGE/lib" "$SLURM_DIR"/{state,spool,run,log}
if [[ ! -s $MUNGE/munge.key ]]; then
  mungekey --create --keyfile="$MUNGE/munge.key" 2>/dev/null \
    || dd if=/dev/urandom of="$MUNGE/munge.key" bs=1 count=1024 status=none
fi
chown -R munge: "$MUNGE"
chmod 700 "$MUNGE" "$MUNGE/lib"
chmod 755 "$MUNGE/run"
chmod 400 "$MUNGE/munge.key"
chmod a+x "$SLURM_DIR"
if ! alive "$MUNGE/munged.pid"; then
  rm -f "$SOCKET" "$SOCKET.lock"
  runuser -u munge -- munged --key-file="$MUNGE/munge.key" --socket="$SOCKET" --pid-file="$MUNGE/munged.pid" \
    --log-file="$MUNGE/munged.log" --seed-file="$MUNGE/lib/munged.seed" --force 9>&-
  log "munged started"
fi

# slurm.conf from the template with this machine's hostname, CPUs and memory (as slurmd sees them).
HOST=$(hostname -s)
CPUS=$(nproc --all)
MEMORY=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
if probe=$(slurmd -C 2>/dev/null | head -n1); then
  [[ $probe =~ CPUs=([0-9]+) ]] && CPUS=${BASH_REMATCH[1]}
  [[ $probe =~ RealMemory=([0-9]+) ]] && MEMORY=${BASH_REMATCH[1]}
fi
sed -e "s|@HOST@|$HOST|g" -e "s|@SLURM_DIR@|$SLURM_DIR|g" -e "s|@CPUS@|$CPUS|g" -e "s|@MEMORY@|$MEMORY|g" \
    -e "s|@CTLD_PORT@|${SLURMCTLD_PORT:-6817}|g" -e "s|@SLURMD_PORT@|${SLURMD_PORT:-6818}|g" \
    "$HERE/slurm.conf.in" > "$CONF.new"
mv "$CONF.new" "$CONF"
# Let plain `sinfo`/`sacct` find it too, unless the machine has its own configuration.
if [[ ! -e /etc/slurm/slurm.conf || -L /etc/slurm/slurm.conf ]]; then
  mkdir -p /etc/slurm && ln -sfn "$CONF" /etc/slurm/slurm.conf
fi

# A local Slurm started by this script that is not the one our pid files name (another checkout's,
# or one whose state directory was removed) holds the ports: stop it. Nothing else is touched.
ours=" $(cat "$SLURM_DIR/run/slurmctld.pid" "$SLURM_DIR/run/slurmd.pid" 2>/dev/null | tr '\n' ' ' || true) "
for pid in $(pgrep -f 'slurm(ctld|d) -f .*/\.slurm/slurm\.conf' || true); do
  if [[ $ours != *" $pid "* ]]; then
    log "stopping a stale or foreign local slurm daemon (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  fi
done

alive "$SLURM_DIR/run/slurmctld.pid" || { slurmctld -f "$CONF" 9>&-; log "slurmctld started"; }
alive "$SLURM_DIR/run/slurmd.pid" || { slurmd -f "$CONF" 9>&-; log "slurmd started"; }

for _ in $(seq 1 60); do
  state=$(node_state)
  case $state in
    idle|mix|alloc) log "node $HOST is $state"; echo "export SLURM_CONF=$CONF"; exit 0 ;;
    down*|drain*|inval*) scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 || true ;;
  esac
  sleep 0.5
done
log "node $HOST did not become idle (state: ${state:-none}); see $SLURM_DIR/log/"
exit 1
