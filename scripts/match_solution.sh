#!/usr/bin/env bash
# Solves the match (docs/rules.md R17) of the real board under the default rules and under each rule
# reading that the rule_variants study compares, into data/match_solution/: for each reading the
# match_states table (CSV), the match-equity chart and solve_match.json, the match tables
# themselves (data/match_solution/tables, usable with --tables by perfect:match), and
# summary.csv / summary.md, the match value by reading.
#   scripts/match_solution.sh                 # every reading (timings: docs/guide/match-solution.md)
#   scripts/match_solution.sh default skip_origin   # some of them
#   scripts/match_solution.sh --summary              # only the summary of the readings solved
# An interrupted run continues: each table's checkpoint is kept in data/match_solution/tables.
# RAJAPASU=/path/to/rajapasu uses that binary instead of building this checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RAJAPASU:-}" ]; then
  cargo build --release
  RAJAPASU=./target/release/rajapasu
fi
out=data/match_solution
mkdir -p "$out/tables"
declare -A rules=(
  [default]=""
  [final_four-stays]="--rule final_four=stays"
  [final_four-sower]="--rule final_four=sower"
  [skip_origin]="--rule skip_origin=true"
  [pussa_chain]="--rule pussa_chain=true"
  [next_starter-round_winner]="--rule next_starter=round_winner"
)
order=(default final_four-stays final_four-sower skip_origin pussa_chain next_starter-round_winner)
readings=("${@:-${order[@]}}")
[ "${1:-}" = --summary ] && readings=()
for name in "${readings[@]}"; do
  [[ -v rules[$name] ]] || { echo "unknown reading '$name'; known: ${order[*]}" >&2; exit 2; }
  # shellcheck disable=SC2086
  "$RAJAPASU" solve --match --all-states ${rules[$name]} --tables "$out/tables" \
    --out "$out/$name" --format csv --max-memory 8G --quiet
done
# The match value by reading (from each reading's solve_match.json).
python3 - "$out" "${order[@]}" <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
rows = []
for n in names:
    p = os.path.join(out, n, "solve_match.json")
    if not os.path.exists(p):
        continue
    m = json.load(open(p))
    v, st = m["match_value"], m["stats"]
    states = {"win": 0, "draw": 0, "loss": 0}
    for line in open(os.path.join(out, n, "match_states.csv")).read().splitlines()[1:]:
        states[line.split(",")[8]] += 1
    rows.append([n, v["value"], "" if v["rounds"] is None else str(v["rounds"]), ",".join(map(str, v["best_moves"])),
                 str(states["win"]), str(states["draw"]), str(states["loss"]), str(st["positions"]), str(st["iterations"]),
                 f'{st["enumerate_seconds"] + st["solve_seconds"]:.0f}', f'{st["peak_bytes"] / 2**30:.2f}'])
head = ["reading", "value_for_first_player", "rounds", "best_opening_moves", "states_starter_wins", "states_drawn",
        "states_starter_loses", "round_positions", "iterations", "seconds", "peak_gib"]
with open(os.path.join(out, "summary.csv"), "w") as f:
    f.write(",".join(head) + "\n")
    for r in rows:
        f.write(",".join('"%s"' % c if "," in c else c for c in r) + "\n")
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
    for r in rows:
        f.write("| " + " | ".join(r) + " |\n")
print(open(os.path.join(out, "summary.md")).read())
PY
