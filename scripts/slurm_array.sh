#!/usr/bin/env bash
# A study larger than one machine, as a Slurm job array: each task plays one shard of the run
# and writes its part files (and its own manifest-shard-K-of-N.json) into the same dataset
# directory on a shared file system. The shards together hold exactly the rows of the
# unsharded run. Resubmitting the array resumes unfinished shards (--resume).
#
#   sbatch --array=1-64 scripts/slurm_array.sh
#   rajapasu summarize /shared/rajapasu/first_player_1e9     # once every task is done
#
#SBATCH --job-name=rajapasu
#SBATCH --cpus-per-task=8
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=rajapasu-%A_%a.log
set -euo pipefail

OUT=${OUT:-/shared/rajapasu/first_player_1e9}
MATCHES=${MATCHES:-1000000000}
SEED=${SEED:-1}
BIN=${BIN:-./target/release/rajapasu}

"$BIN" simulate \
  --matches "$MATCHES" --seed "$SEED" \
  --south random --north random --first alternate \
  --detail match --format parquet \
  --threads "${SLURM_CPUS_PER_TASK:-0}" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
  --out "$OUT" --resume --quiet
