#!/usr/bin/env bash
# The match table (R17) solved on a Slurm cluster: the steps of `rajapasu solve-cluster` run as
# Slurm work over a directory every node sees (docs/guide/solve.md, "A match across a cluster").
#
#   scripts/slurm_match.sh plan DIR --buckets B --rule ...   # once: the plan in DIR
#   sbatch --ntasks=T scripts/slurm_match.sh steps DIR       # one job: each step a `srun` job
#                                                            # step of its tasks, T at a time
#   scripts/slurm_match.sh submit DIR                        # or a chain of jobs: each step a job
#                                                            # array, its barrier a job after it
#   scripts/slurm_match.sh wait DIR [SECONDS]                # the chain's end (or a failure)
#
# `steps` pays a job step's start (0.2 s on one node) a step; `submit` pays the scheduler's
# (about 3 s a step on one node), but frees the nodes between steps and lets each step's array
# spread over what is free: use it when a step's tasks take minutes. Both run the same commands
# (`task`, `advance`), each safe to run again: after a failure or a kill, run `steps` or
# `submit` again and the solve continues. The table is DIR/match-<rules hash>.json; copy it into
# the tables directory (`--tables`, $RAJAPASU_TABLES) for `solve --match` to read it.
#
# BIN is the rajapasu binary (default target/release/rajapasu, made absolute); SBATCH_ARGS are
# given to every sbatch of `submit` (a partition, a time limit, --mem).
set -euo pipefail

BIN=${BIN:-target/release/rajapasu}
BIN=$(realpath "$BIN")
SELF=$(realpath "$0")
SBATCH_ARGS=${SBATCH_ARGS:-}

usage() {
  echo "usage: $0 plan DIR --buckets B [--rule NAME=VALUE]... | steps DIR | submit DIR | wait DIR [SECONDS]" >&2
  exit 2
}

# Runs the current step's N tasks as one job step of the allocation's tasks, each taking the
# indices congruent to its rank.
run_step() {
  local dir=$1 n=$2 width=${SLURM_NTASKS:-1}
  ((width > n)) && width=$n
  srun --ntasks="$width" --kill-on-bad-exit=1 bash -c '
    for ((i = SLURM_PROCID; i < '"$n"'; i += SLURM_NTASKS)); do
      "$0" solve-cluster task "$1" "$i" || exit 1
    done' "$BIN" "$dir"
}

[ $# -ge 2 ] || usage
action=$1
dir=$(realpath -m "$2")
shift 2
# The chain's jobs are named after its directory, so that `wait` sees only its own chain's jobs
# when several solves share the cluster.
chain=rjp-$(printf %s "$dir" | sha256sum | cut -c1-12)
case "$action" in
  plan)
    "$BIN" solve-cluster plan "$dir" "$@"
    ;;
  steps)
    [ -n "${SLURM_JOB_ID:-}" ] || { echo "$0 steps: run it in a Slurm job (sbatch --ntasks=T $0 steps DIR)" >&2; exit 2; }
    n=$("$BIN" solve-cluster next "$dir")
    while ((n > 0)); do
      run_step "$dir" "$n"
      n=$("$BIN" solve-cluster advance "$dir")
    done
    echo "table: $(ls "$dir"/match-*.json)"
    ;;
  submit)
    # The current step as an array of its tasks, then its barrier: advance and submit the next
    # step (nothing once the table is written).
    n=$("$BIN" solve-cluster next "$dir")
    ((n > 0)) || { echo "done: $(ls "$dir"/match-*.json)"; exit 0; }
    mkdir -p "$dir/logs"
    # shellcheck disable=SC2086
    tasks=$(sbatch --parsable $SBATCH_ARGS --job-name="$chain-task" --array="0-$((n - 1))" \
      --output="$dir/logs/task-%A_%a.log" --wrap="'$BIN' solve-cluster task '$dir'")
    # shellcheck disable=SC2086
    sbatch --parsable $SBATCH_ARGS --job-name="$chain-advance" --dependency="afterok:${tasks%%;*}" \
      --kill-on-invalid-dep=yes --output="$dir/logs/advance-%j.log" \
      --wrap="'$BIN' solve-cluster advance '$dir' && BIN='$BIN' '$SELF' submit '$dir'" >/dev/null
    ;;
  wait)
    # Waits for the table; fails when no job of this directory's chain is left to write it (one
    # failed, or none was submitted).
    limit=${1:-3600}
    start=$SECONDS
    until [ "$("$BIN" solve-cluster next "$dir")" = 0 ]; do
      if [ -z "$(squeue --noheader --name="$chain-task,$chain-advance" --format=%i)" ]; then
        sleep 2 # the barrier's next submission may be on its way
        if [ -z "$(squeue --noheader --name="$chain-task,$chain-advance" --format=%i)" ] &&
          [ "$("$BIN" solve-cluster next "$dir")" != 0 ]; then
          echo "$0 wait: no job of the chain is left and the table is not written; logs in $dir/logs" >&2
          exit 1
        fi
      fi
      if ((SECONDS - start > limit)); then
        echo "$0 wait: no table after $limit s" >&2
        exit 1
      fi
      sleep 1
    done
    echo "table: $(ls "$dir"/match-*.json)"
    ;;
  *)
    usage
    ;;
esac
