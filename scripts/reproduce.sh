#!/usr/bin/env bash
# Reproduces every study of experiments/ with its summary and charts, into data/NAME/.
# Interrupted? Run it again: finished arms are kept and interrupted ones resume.
#   scripts/reproduce.sh                 # all experiments
#   scripts/reproduce.sh quickstart      # some of them
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
# The ladder's perfect:match reads the committed match table (and computes its rounds' values beside
# it once, ignored by git: docs/guide/match-solution.md).
export RAJAPASU_TABLES="${RAJAPASU_TABLES:-$PWD/data/match_solution/tables}"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(quickstart first_player rule_variants small_boards ladder readings)
fi
for name in "${names[@]}"; do
  echo "== $name"
  if grep -q '^players' "experiments/$name.toml"; then
    # A tournament file (a list of players): the round robin and its ratings.
    ./target/release/rajapasu tournament "experiments/$name.toml" --out-root data
  else
    ./target/release/rajapasu run "experiments/$name.toml" --out-root data
  fi
  if [ "$name" = readings ]; then
    # Its question is answered by the game-quality metrics (docs/metrics.md).
    ./target/release/rajapasu metrics "data/$name" > /dev/null
  fi
  # Every part file against the SHA-256 its batch recorded: check before publishing.
  ./target/release/rajapasu verify "data/$name"
done
