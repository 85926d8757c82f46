#!/usr/bin/env python3
"""The figures of a solve run by scripts/spill_in_steps.sh, by level, as a Markdown table.

    scripts/spill_figures.py DIR            # DIR: the tables directory given to spill_in_steps.sh

Joins the solve's own figures (each round's state.json under DIR/rounds/) with each level's run
under `/usr/bin/time -v` (DIR/levels.log): positions, moves, buckets and rounds of expansion, the
positions file's bytes a position, the pending files (every lower level's) at their largest while
the level was enumerated and when it was done, the merges made, the solve's own seconds, and the
run's wall clock, CPU seconds and peak RSS.
"""
import json
import re
import sys
from pathlib import Path


def runs(log: Path):
    """Each run of the log: the level it finished (None if unknown) and its time -v figures."""
    text = log.read_text() if log.exists() else ""
    for block in text.split("\n== "):
        stopped = re.search(r"continue from level (\d+)", block)
        level = int(stopped.group(1)) + 1 if stopped else None
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", block)
        user = re.search(r"User time \(seconds\): (\S+)", block)
        system = re.search(r"System time \(seconds\): (\S+)", block)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", block)
        if level is None or not (wall and user and system and rss):
            continue
        yield level, {
            "wall": wall.group(1),
            "cpu": float(user.group(1)) + float(system.group(1)),
            "rss_mib": int(rss.group(1)) / 1024,
        }


def table(state: dict, timed: dict) -> str:
    rows = [
        "| level | positions | quiet moves | exits | buckets | rounds | file B/pos | pending GB, peak | "
        "pending GB, done | merges | enumerate s | solve s | wall | CPU s | peak RSS MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    pending = state.get("pending_figures", {})
    work = state.get("buckets", {})
    for key in sorted(state.get("levels", {}), key=int, reverse=True):
        f = state["levels"][key]
        positions = sum(f["positions"])
        buckets, rounds = work.get(key, ["", ""])
        held = pending.get(key, {})
        run = timed.get(int(key), {})
        per = f["positions_bytes"] / positions if positions else 0
        rows.append(
            f"| {key} | {positions} | {f['quiet_moves']} | {f['exits']} | {buckets} | "
            f"{rounds} | {per:.2f} | {held.get('peak_bytes', 0) / 1e9:.2f} | "
            f"{held.get('bytes', 0) / 1e9:.2f} | {held.get('merges', 0)} | "
            f"{f['enumerate_seconds']:.1f} | "
            f"{f['solve_seconds']:.1f} | {run.get('wall', '')} | "
            f"{run.get('cpu', 0):.0f} | {run.get('rss_mib', 0):.0f} |"
        )
    return "\n".join(rows)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(sys.argv[1])
    states = sorted(root.glob("rounds/*/state.json"))
    if not states:
        print(f"{root}: no rounds/*/state.json (not a tables directory of solve --spill)", file=sys.stderr)
        return 2
    timed = dict(runs(root / "levels.log"))
    for path in states:
        state = json.loads(path.read_text())
        total = sum(sum(f["positions"]) for f in state.get("levels", {}).values())
        print(f"## {path.parent.name}: {len(state.get('levels', {}))} levels, {total:,} positions\n")
        print(table(state, timed))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
