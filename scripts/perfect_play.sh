#!/usr/bin/env bash
# Regenerates the perfect_play study into data/perfect_play/: the exact round-1 value (R15) of
# every board of 2..7 pits a row and 1..7 counters a pit (each within 150,000,000 positions and
# 4 GiB), beside the round-1 starter's win rate under random play (20,000 matches a board,
# seed 1), matches under perfect round play, the frontier (timings) and the chart; then every
# round start of the real board and a match under perfect round play on it.
#   scripts/perfect_play.sh                # the committed study (about 25 minutes on 2 cores)
#   scripts/perfect_play.sh --matches 2000 # options are passed on to `rajapasu solve --study`
# The match values (R17) use and keep their tables in data/match_solution/tables (the real
# board's, 26 minutes to solve, is committed there). Boards whose round 1 passes 20,000,000
# positions are match-solved only when their table is there already: 7x4, 7x5 and 7x6 were solved
# with `rajapasu solve --match --rule pits_per_row=7 --rule seeds_per_pit=N --tables
# data/match_solution/tables --max-memory 16G` (13 to 21 minutes and 13 to 14 GB each; see
# docs/performance.md). RAJAPASU=/path/to/rajapasu uses that binary instead of building this
# checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RAJAPASU:-}" ]; then
  cargo build --release
  RAJAPASU=./target/release/rajapasu
fi
mkdir -p data/perfect_play
# The defaults of --study: --matches 20000 --seed 1 --max-positions 150000000 --max-memory 4G.
"$RAJAPASU" solve --study --out data/perfect_play --format csv --tables data/match_solution/tables "$@" | tee data/perfect_play/summary.md.tmp
mv data/perfect_play/summary.md.tmp data/perfect_play/summary.md
# Every round start of the real board (7 pits, 7 counters; about 3 minutes), and a match under
# perfect round play on it (about 10 minutes on one thread).
"$RAJAPASU" solve --all-starts --out data/perfect_play/real_board_starts --quiet --max-memory 6G
{
  echo "# rajapasu solve --perfect-match --max-positions 60000000 --max-memory 6G   (default rules: 7 pits a row, 7 counters a pit)"
  echo "# Every round played perfectly (R15); each round solved exactly, both starters."
  echo
  "$RAJAPASU" solve --perfect-match --max-positions 60000000 --max-memory 6G
} > data/perfect_play/real_board_match.txt
