#!/usr/bin/env bash
# Solves the round (R15) of every open-pit configuration a match reaches, both starters, each with
# its levels on disk, one level a run (scripts/spill_in_steps.sh), in one tables directory; each
# configuration's answer (`solve --spill --json`) goes to DIR/answers/open-S-N.json.
#   scripts/spill_rounds.sh DIR PITS [solve arguments...]
#   scripts/spill_rounds.sh /data/stays 7 --rule final_four=stays --max-memory 4G --max-disk 58G
# PITS (1 to 9) is the board's pits a row: the rules' pits_per_row, which a `--rule
# pits_per_row=N` among the arguments must agree with. A side holding h counters opens
# min(PITS, h / seeds_per_pit) pits (R12), and the holdings sum to 2 x PITS x seeds_per_pit, so
# one side opens every pit: the configurations are PITS,PITS then PITS-1,PITS and PITS,PITS-1 down
# to 1,PITS and PITS,1, solved in that order (the largest first). A configuration whose answer is
# there is skipped, so a stopped run (DIR/STOP, as spill_in_steps.sh) continues where it was.
# The answers hold for one set of arguments: the first solve records them (but --max-memory and
# --max-disk, which bound the solve without changing its answer) in DIR/answers/ARGS, and a run
# with others is refused. --max-disk bounds each configuration's solve, and every configuration's
# levels stay in DIR: the directory holds their sum (the real board's `stays`: the full round
# about 24 GB, plus the others). A failed configuration stops the run, naming it; its solve's
# output is in DIR/levels.log.last.
# SKIP="S,N ..." leaves those configurations out (answered by another run or machine; see
# spill_answers.py, which keeps their rows). RAJAPASU=/path/to/rajapasu uses that binary; NICE
# sets the niceness (default 19).
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,21p "$0" >&2; exit 2; }
dir=$1
pits=$2
shift 2
case $pits in
  [1-9]) ;;
  *) echo "PITS must be the pits a row, a number from 1 to 9; got '$pits'" >&2; exit 2 ;;
esac
# The arguments that decide the answers, and the pits a row they ask for, if they do.
answering=()
asked_pits=
previous=
for arg in "$@"; do
  case $previous in --max-memory | --max-disk) previous=; continue ;; esac
  previous=$arg
  case $arg in
    --max-memory | --max-disk | --max-memory=* | --max-disk=*) continue ;;
  esac
  answering+=("$arg")
  case $arg in
    pits_per_row=* | --rule=pits_per_row=*) asked_pits=${arg##*=} ;;
  esac
done
if [ -n "$asked_pits" ] && [ "$asked_pits" != "$pits" ]; then
  echo "PITS $pits disagrees with the arguments' --rule pits_per_row=$asked_pits" >&2
  exit 2
fi
args=$(printf '%q ' ${answering[@]+"${answering[@]}"})
here=$(dirname "$0")
RAJAPASU=${RAJAPASU:-$here/../target/release/rajapasu}
export RAJAPASU
mkdir -p "$dir/answers"
if [ -e "$dir/answers/ARGS" ]; then
  recorded=$(cat "$dir/answers/ARGS")
  if [ "$recorded" != "$args" ]; then
    echo "$dir/answers holds the answers of the arguments '$recorded'; this run asks for" \
      "'$args': give another DIR, or remove $dir/answers to answer afresh" >&2
    exit 2
  fi
fi
configurations=("$pits,$pits")
for ((k = pits - 1; k >= 1; k--)); do
  configurations+=("$k,$pits" "$pits,$k")
done
for skipped in ${SKIP:-}; do
  case " ${configurations[*]} " in
    *" $skipped "*) ;;
    *) echo "SKIP names '$skipped', not a configuration of $pits pits a row (S,N: ${configurations[*]})" >&2
      exit 2 ;;
  esac
done
for open in "${configurations[@]}"; do
  answer=$dir/answers/open-${open/,/-}.json
  [ -e "$answer" ] && continue
  case " ${SKIP:-} " in *" $open "*) continue ;; esac
  [ -e "$dir/STOP" ] && exit 0
  if [ ! -e "$dir/answers/ARGS" ]; then
    printf '%s\n' "$args" >"$dir/answers/ARGS.tmp"
    mv "$dir/answers/ARGS.tmp" "$dir/answers/ARGS"
  fi
  code=0
  bash "$here/spill_in_steps.sh" "$dir" --open "$open" --starter both "$@" || code=$?
  if [ "$code" != 0 ]; then
    echo "configuration $open failed (exit $code) solving its levels; see $dir/levels.log.last" >&2
    exit "$code"
  fi
  [ -e "$dir/STOP" ] && exit 0
  # Every level is kept: this run reads the solved files and answers.
  nice -n "${NICE:-19}" "$RAJAPASU" solve --spill --tables "$dir" --open "$open" --starter both \
    --json --quiet "$@" >"$answer.tmp" 2>"$dir/levels.log.last" || code=$?
  if [ "$code" != 0 ]; then
    rm -f "$answer.tmp"
    echo "configuration $open failed (exit $code) answering; see $dir/levels.log.last" >&2
    exit "$code"
  fi
  mv "$answer.tmp" "$answer"
done
