#!/usr/bin/env bash
# Benchmarks the engine and the simulator; prints a Markdown table.
#   scripts/bench.sh            # full (a few minutes)
#   QUICK=1 scripts/bench.sh    # smaller runs
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
# (`cargo test --release` builds the same binary, target/release/rajapasu.)
BIN=./target/release/rajapasu
N=${N:-400000}
[ "${QUICK:-0}" = 1 ] && N=100000
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "## Engine (one thread, random full matches, default rules, nothing recorded)"
echo '```'
"$BIN" bench --matches "$N" --repeat 3
echo '```'
echo
echo "## Simulator (random vs random unless stated; default rules; Parquet output)"
echo
echo "| players | detail | threads | matches | seconds | matches/s | matches/s per thread | peak RSS (MiB) |"
echo "|---|---|---|---|---|---|---|---|"
run() { # players detail threads matches
  local south=$1 north=$2 detail=$3 threads=$4 matches=$5
  rm -rf "$TMP/out"
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$BIN" simulate --matches "$matches" --seed 1 --south "$south" --north "$north" \
    --detail "$detail" --threads "$threads" --format parquet --out "$TMP/out" --quiet
  read -r secs kb < "$TMP/time"
  awk -v s="$south-$north" -v d="$detail" -v t="$threads" -v m="$matches" -v secs="$secs" -v kb="$kb" \
    'BEGIN { printf "| %s | %s | %d | %d | %.2f | %.0f | %.0f | %.0f |\n", s, d, t, m, secs, m/secs, m/secs/t, kb/1024 }'
}
for detail in match round; do
  for threads in 1 2; do
    run random random "$detail" "$threads" "$N"
  done
done
run greedy greedy round 2 $((N / 10))
run minimax:2 greedy round 2 $((N / 200))

echo
echo "## Recording against the bare engine, interleaved (rajapasu bench --detail all)"
echo
echo "Each repeat times the engine, then simulate of the same matches at every detail, files written;"
echo "ratio = matches/s (per thread) / the engine's matches/s in that repeat."
echo '```'
"$BIN" bench --matches "$N" --repeat 3 --detail all --threads 1
"$BIN" bench --matches "$N" --repeat 2 --detail match,round --threads 2
echo '```'
