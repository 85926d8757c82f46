#!/usr/bin/env bash
# A real Slurm test of scripts/slurm_match.sh: a one-node cluster on the loopback (munged,
# slurmctld and slurmd of Debian's slurm-wlm, started here in a temporary directory and stopped
# at the end), the match table solved by `steps` (a job whose job steps run the tasks) and by
# `submit` (a chain of job arrays and barrier jobs), each equal byte for byte, outside its
# `stats` (timings and the graphs' sizes), to `rajapasu solve --match`'s table.
#
#   scripts/slurm_test.sh        # slurm-wlm and munge installed; run as root (the daemons)
#
# It installs nothing. Without slurm-wlm it skips (exit 0), except under CI=true, where it
# fails: .ci/run installs slurm-wlm and runs it. BIN is the rajapasu binary.
set -euo pipefail

BIN=$(realpath "${BIN:-target/release/rajapasu}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export BIN

missing=""
for tool in munged slurmctld slurmd sbatch srun sinfo squeue; do
  command -v "$tool" >/dev/null || missing="$missing $tool"
done
if [ -n "$missing" ] || [ "$(id -u)" != 0 ]; then
  why="${missing:+missing:$missing}"
  [ "$(id -u)" = 0 ] || why="${why:+$why; }not root"
  if [ "${CI:-}" = true ]; then
    echo "slurm_test: cannot run ($why): install slurm-wlm (apt-get install slurm-wlm) and run as root" >&2
    exit 1
  fi
  echo "slurm_test: skipped ($why)" >&2
  exit 0
fi

W=$(mktemp -d /tmp/rajapasu-slurm.XXXXXX)
chmod 755 "$W"
HOST=$(hostname -s)
# Ports off the defaults, so as not to meet a Slurm of the machine's own.
CTLD_PORT=${CTLD_PORT:-16817}
SLURMD_PORT=${SLURMD_PORT:-16818}

stop() {
  local code=$?
  # Jobs first (a barrier job may still be ending), so that no job step outlives its slurmd.
  if [ -n "${SLURM_CONF:-}" ]; then
    scancel --full --quiet --name=rjp-task,rjp-advance 2>/dev/null || true
    for _ in $(seq 20); do
      [ -z "$(squeue --noheader --format=%i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  for pid in "$W/slurmd.pid" "$W/slurmctld.pid" "$W/munge/munged.pid"; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  sleep 1
  if [ "$code" != 0 ]; then
    echo "slurm_test: failed; the daemons' logs:" >&2
    tail -n 20 "$W"/log/* "$W"/munge/munged.log 2>/dev/null >&2 || true
    find "$W" -name '*.log' -path '*logs*' -exec tail -n 5 {} + >&2 2>/dev/null || true
  fi
  rm -rf "$W"
  exit "$code"
}
trap stop EXIT

# munge: a key of its own, its socket in the directory.
mkdir -p "$W/munge" "$W/state" "$W/spool" "$W/log"
chmod 700 "$W/munge"
dd if=/dev/urandom of="$W/munge/munge.key" bs=128 count=1 status=none
chmod 600 "$W/munge/munge.key"
munged --force --key-file="$W/munge/munge.key" --socket="$W/munge/munge.sock" \
  --pid-file="$W/munge/munged.pid" --log-file="$W/munge/munged.log" --seed-file="$W/munge/seed"

cat >"$W/slurm.conf" <<EOF
ClusterName=rajapasu-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$W/munge/munge.sock
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# A job whose dependency is met is started at once, not at the next scheduling pass: a step of
# the job-array chain then takes about 2 s instead of 5.5 s.
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0
MpiDefault=none
ReturnToService=2
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$W/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  [ "$(sinfo --noheader --format=%T 2>/dev/null)" = idle ] && break
  sleep 1
done
[ "$(sinfo --noheader --format=%T)" = idle ] || { echo "slurm_test: the node is not idle: $(sinfo)" >&2; exit 1; }

# The one-machine table of a board, and a cluster table's, compared outside their stats.
values() { sed 's/"stats":{[^}]*},//' "$1"; }
same_table() {
  local name=$1 dir=$2
  shift 2
  "$BIN" solve --match --quiet --json --tables "$W/one-$name" "$@" >/dev/null
  local one cluster
  one=$(ls "$W/one-$name"/match-*.json)
  cluster=$(ls "$dir"/match-*.json)
  [ "$(basename "$one")" = "$(basename "$cluster")" ] || { echo "slurm_test: $name: $one and $cluster name other rules" >&2; exit 1; }
  if ! cmp <(values "$one") <(values "$cluster"); then
    echo "slurm_test: $name: the cluster's table differs from solve --match's" >&2
    exit 1
  fi
  grep -q '"complete":true' "$cluster"
  echo "slurm_test: $name: the table equals solve --match's ($(basename "$cluster"))"
}

cd "$ROOT"
board() { echo "--rule=pits_per_row=$1" "--rule=seeds_per_pit=$2" "${@:3}"; }
# `steps`: one job of two tasks, every step a job step.
for spec in "3 2" "2 3 --rule=final_four=stays"; do
  # shellcheck disable=SC2086
  rules=$(board $spec)
  name=steps-$(echo "$spec" | tr ' =' '__')
  dir="$W/$name"
  # shellcheck disable=SC2086
  scripts/slurm_match.sh plan "$dir" --buckets 3 $rules >/dev/null
  start=$SECONDS
  sbatch --wait --ntasks=2 --output="$W/$name.log" scripts/slurm_match.sh steps "$dir" >/dev/null
  echo "slurm_test: $name: $((SECONDS - start)) s"
  # shellcheck disable=SC2086
  same_table "$name" "$dir" $rules
done

# `submit`: each step a job array and a barrier job after it.
rules=$(board 2 2 --rule=next_starter=round_winner)
dir="$W/array"
# shellcheck disable=SC2086
scripts/slurm_match.sh plan "$dir" --buckets 2 $rules >/dev/null
start=$SECONDS
scripts/slurm_match.sh submit "$dir"
# A plan whose chain was never submitted: `wait` on it does not take the running chain for its own.
idle="$W/idle"
# shellcheck disable=SC2086
scripts/slurm_match.sh plan "$idle" --buckets 2 $rules >/dev/null
if scripts/slurm_match.sh wait "$idle" 20 2>"$W/idle.err"; then
  echo "slurm_test: wait on a directory without a chain succeeded" >&2
  exit 1
fi
grep -q "no job of the chain is left" "$W/idle.err" || {
  echo "slurm_test: wait on a directory without a chain: $(cat "$W/idle.err")" >&2
  exit 1
}
# The chain's jobs, named as slurm_match.sh names them (other jobs may share the cluster).
chain=rjp-$(printf %s "$(realpath -m "$dir")" | sha256sum | cut -c1-12)
chain_jobs() { squeue --noheader --name="$chain-task,$chain-advance" --format=%i; }
[ -n "$(chain_jobs)" ] || {
  echo "slurm_test: the chain ended before the idle wait was checked; nothing was shown" >&2
  exit 1
}
scripts/slurm_match.sh wait "$dir" 600 >/dev/null
# The last barrier job ends after writing the table.
for _ in $(seq 30); do
  [ -z "$(chain_jobs)" ] && break
  sleep 0.5
done
echo "slurm_test: array: $((SECONDS - start)) s"
# shellcheck disable=SC2086
same_table array "$dir" $rules
echo "slurm_test: ok"
