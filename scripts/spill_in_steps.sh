#!/usr/bin/env bash
# Runs a long `rajapasu solve --spill` one level at a time, niced, each level under
# `/usr/bin/time -v`, so that every level's wall clock, CPU seconds and peak RSS are its own and
# a stop loses at most the level in hand (the solve resumes from its last checkpoint).
#   scripts/spill_in_steps.sh DIR [solve arguments...]
#   scripts/spill_in_steps.sh /data/stays --count-only --rule final_four=stays --starter both \
#     --max-memory 4G --max-disk 34G
# DIR is the tables directory (outside the work tree for a solve of hours). The run goes on until
# the solve is finished, a run fails (its exit code is returned), or DIR/STOP exists (checked
# between levels: `touch DIR/STOP` stops after the level in hand, and
# `pkill -f "solve --spill --tables DIR"` as well stops at once). Each level appends its
# `time -v` figures to DIR/levels.log; the solve's figures by level are in its state.json.
# RAJAPASU=/path/to/rajapasu uses that binary; NICE sets the niceness (default 19).
# GROUP_NICE (-20 to 19) sets the niceness of the script's autogroup as well: where Linux groups
# a session's processes (kernel.sched_autogroup_enabled, the default on most distributions), a
# process's niceness orders it only within its session, and a session shares the CPU with each
# other session as an equal, so a niced solve started by setsid still takes a core from a build
# beside it. Start the script in a session of its own (setsid) before setting GROUP_NICE: every
# process of the session is niced.
set -euo pipefail
[ $# -ge 1 ] || { sed -n 2,19p "$0" >&2; exit 2; }
dir=$1
shift
RAJAPASU=${RAJAPASU:-$(dirname "$0")/../target/release/rajapasu}
mkdir -p "$dir"
log=$dir/levels.log
if [ -n "${GROUP_NICE:-}" ]; then
  if ! [[ $GROUP_NICE =~ ^-?[0-9]+$ ]] || [ "$GROUP_NICE" -lt -20 ] || [ "$GROUP_NICE" -gt 19 ]; then
    echo "error: GROUP_NICE is '$GROUP_NICE'; allowed: an integer from -20 to 19" >&2
    exit 2
  fi
  if [ -w /proc/self/autogroup ] && echo "$GROUP_NICE" 2>/dev/null >/proc/self/autogroup; then
    echo "== $(date -u +%FT%TZ) autogroup $(cat /proc/self/autogroup)" >>"$log"
  else
    echo "== $(date -u +%FT%TZ) GROUP_NICE ignored: no autogroup to set (the kernel groups no sessions)" >>"$log"
  fi
fi
while [ ! -e "$dir/STOP" ]; do
  out=$(mktemp)
  set +e
  nice -n "${NICE:-19}" /usr/bin/time -v "$RAJAPASU" solve --spill --tables "$dir" \
    --max-levels 1 --quiet "$@" >"$out" 2>&1
  code=$?
  set -e
  mv "$out" "$log.last"
  { echo "== $(date -u +%FT%TZ) exit $code"; cat "$log.last"; } >>"$log"
  # A run stopped by --max-levels says so: go on to the next level.
  if grep -q 'levels as asked; run again' "$log.last"; then
    continue
  fi
  exit "$code"
done
