#!/usr/bin/env bash
# Perfect match play (perfect:match, R17) on the real board against the strongest players, first
# player alternating, into data/match_solution/perfect_match_vs/OPPONENT/ (dataset at round
# detail and its summary). The match table is data/match_solution/tables; the rounds' values
# that perfect:match needs are computed there on first use (11 to 18 minutes and 7 GB for the
# full round, 3.7 GB on disk, ignored by git) and read on later runs (docs/guide/match-solution.md).
#   scripts/perfect_match_vs.sh                      # mcts:256 (100 matches), the others 20,
#                                                    # perfect:match itself included
#   scripts/perfect_match_vs.sh mcts:1024            # some of them
# RAJAPASU=/path/to/rajapasu uses that binary instead of building this checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RAJAPASU:-}" ]; then
  cargo build --release
  RAJAPASU=./target/release/rajapasu
fi
out=data/match_solution/perfect_match_vs
mkdir -p "$out"
declare -A matches=([mcts:256]=100 [mcts:1024]=20 [minimax:6]=20 [perfect:round]=20 [perfect:match]=20)
order=(mcts:256 mcts:1024 minimax:6 perfect:round perfect:match)
for opponent in "${@:-${order[@]}}"; do
  [[ -v matches[$opponent] ]] || { echo "unknown opponent '$opponent'; known: ${order[*]}" >&2; exit 2; }
  dir="$out/${opponent//:/-}"
  rm -rf "$dir"
  RAJAPASU_TABLES=data/match_solution/tables "$RAJAPASU" simulate --matches "${matches[$opponent]}" --seed 7 \
    --south perfect:match --north "$opponent" --detail round --out "$dir" --quiet
  "$RAJAPASU" summarize "$dir" > /dev/null
done
