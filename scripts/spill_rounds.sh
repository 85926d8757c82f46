#!/usr/bin/env bash
# Solves the round (R15) of every open-pit configuration a match reaches, both starters, each with
# its levels on disk, one level a run (scripts/spill_in_steps.sh), in one tables directory; each
# configuration's answer (`solve --spill --json`) goes to DIR/answers/open-S-N.json.
#   scripts/spill_rounds.sh DIR PITS [solve arguments...]
#   scripts/spill_rounds.sh /data/stays 7 --rule final_four=stays --max-memory 4G --max-disk 58G
# PITS is the board's pits a row (the rules' pits_per_row). A side holding h counters opens
# min(PITS, h / seeds_per_pit) pits (R12), and the holdings sum to 2 x PITS x seeds_per_pit, so
# one side opens every pit: the configurations are PITS,PITS then PITS-1,PITS and PITS,PITS-1 down
# to 1,PITS and PITS,1, solved in that order (the largest first). A configuration whose answer is
# there is skipped, so a stopped run (DIR/STOP, as spill_in_steps.sh) continues where it was.
# RAJAPASU=/path/to/rajapasu uses that binary; NICE sets the niceness (default 19).
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,12p "$0" >&2; exit 2; }
dir=$1
pits=$2
shift 2
case $pits in
  [1-9] | [1-9][0-9]) ;;
  *) echo "PITS must be the pits a row, a number from 1; got '$pits'" >&2; exit 2 ;;
esac
here=$(dirname "$0")
RAJAPASU=${RAJAPASU:-$here/../target/release/rajapasu}
export RAJAPASU
mkdir -p "$dir/answers"
configurations=("$pits,$pits")
for ((k = pits - 1; k >= 1; k--)); do
  configurations+=("$k,$pits" "$pits,$k")
done
for open in "${configurations[@]}"; do
  answer=$dir/answers/open-${open/,/-}.json
  [ -e "$answer" ] && continue
  [ -e "$dir/STOP" ] && exit 0
  bash "$here/spill_in_steps.sh" "$dir" --open "$open" --starter both "$@"
  [ -e "$dir/STOP" ] && exit 0
  # Every level is kept: this run reads the solved files and answers.
  nice -n "${NICE:-19}" "$RAJAPASU" solve --spill --tables "$dir" --open "$open" --starter both \
    --json --quiet "$@" >"$answer.tmp"
  mv "$answer.tmp" "$answer"
done
