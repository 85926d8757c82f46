#!/usr/bin/env python3
"""The figures of a solve run by scripts/spill_in_steps.sh, by level, as a Markdown table.

    scripts/spill_figures.py DIR            # DIR: the tables directory given to spill_in_steps.sh

Joins the solve's own figures (each round's state.json under DIR/rounds/) with each level's run
under `/usr/bin/time -v` (DIR/levels.log): positions, moves, buckets and rounds of expansion, the
positions file's bytes a position, the pending files (every lower level's) at their largest while
the level was enumerated and when it was done, the merges made, the solve's own seconds, and the
wall clock, CPU seconds and peak RSS of the run that enumerated the level and of the run that
solved it (a round's runs told apart by their --open and --starter).
"""
import json
import re
import sys
from pathlib import Path


def runs(log: Path):
    """Each run of the log that finished a level, as ((open pits, starter), phase, level,
    figures), where phase is "enumerate" or "solve".

    A run says which level the next run takes up ("continue from level N"), so the level a run
    finished is the one its predecessor of the same round named; a round's first run finishes
    its top level (N + 1). Levels are enumerated from the top down to 0, then solved from 0 up.
    A run that failed finishes no level; a run killed with its shell leaves no entry.
    """
    text = log.read_text() if log.exists() else ""
    taken_up = {}  # round -> (phase, the level its next run takes up, or None before the first)
    for block in text.split("\n== "):
        command = re.search(r'Command being timed: "(.*)"', block)
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", block)
        user = re.search(r"User time \(seconds\): (\S+)", block)
        system = re.search(r"System time \(seconds\): (\S+)", block)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", block)
        status = re.search(r"Exit status: (\d+)", block)
        if not (command and wall and user and system and rss and status):
            continue
        stopped = re.search(r"continue from level (\d+)", block)
        if status.group(1) != "0" and not stopped:
            continue
        opened = re.search(r"--open[= ](\S+)", command.group(1))
        starter = re.search(r"--starter[= ](\S+)", command.group(1))
        key = (opened.group(1) if opened else None, starter.group(1) if starter else "south")
        phase, level = taken_up.get(key, ("enumerate", None))
        if level is None:
            if not stopped:
                continue
            level = int(stopped.group(1)) + 1
        yield key, phase, level, {
            "wall": wall.group(1),
            "cpu": float(user.group(1)) + float(system.group(1)),
            "rss_mib": int(rss.group(1)) / 1024,
        }
        if phase == "enumerate" and level == 0:
            taken_up[key] = ("solve", 0)
        else:
            taken_up[key] = (phase, int(stopped.group(1)) if stopped else level + 1)


def round_key(path: Path, state: dict):
    """The (open pits, starter) a round's runs name: `--open` as given (None for every pit open,
    the default) and `--starter` (the directory's name ends in the starters, "south+north" for
    both)."""
    south, north = state.get("open", [0, 0])
    rules = state.get("rules", "{}")
    pits = (json.loads(rules) if isinstance(rules, str) else rules).get("pits_per_row")
    starters = path.parent.name.rsplit("-", 1)[-1]
    starter = "both" if starters == "south+north" else starters
    return [(f"{south},{north}", starter)] + ([(None, starter)] if south == north == pits else [])


def table(state: dict, timed: dict) -> str:
    """The round's levels from the top; `timed[(phase, level)]` the figures of its runs."""
    rows = [
        "| level | positions | quiet moves | exits | buckets | rounds | file B/pos | pending GB, peak | "
        "pending GB, done | merges | enumerate s | solve s | enumerating: wall, CPU s, RSS MiB | "
        "solving: wall, CPU s, RSS MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    pending = state.get("pending_figures", {})
    work = state.get("buckets", {})
    for key in sorted(state.get("levels", {}), key=int, reverse=True):
        f = state["levels"][key]
        positions = sum(f["positions"])
        buckets, rounds = work.get(key, ["", ""])
        held = pending.get(key, {})
        per = f["positions_bytes"] / positions if positions else 0
        ran = []
        for phase in ("enumerate", "solve"):
            run = timed.get((phase, int(key)))
            ran.append(f"{run['wall']}, {run['cpu']:.0f}, {run['rss_mib']:.0f}" if run else "")
        rows.append(
            f"| {key} | {positions} | {f['quiet_moves']} | {f['exits']} | {buckets} | "
            f"{rounds} | {per:.2f} | {held.get('peak_bytes', 0) / 1e9:.2f} | "
            f"{held.get('bytes', 0) / 1e9:.2f} | {held.get('merges', 0)} | "
            f"{f['enumerate_seconds']:.1f} | {f['solve_seconds']:.1f} | {ran[0]} | {ran[1]} |"
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
    logged = list(runs(root / "levels.log"))
    for path in states:
        state = json.loads(path.read_text())
        keys = round_key(path, state)
        # The last run of a level counts (a round solved again in the same directory).
        timed = {(phase, level): run for key, phase, level, run in logged if key in keys}
        total = sum(sum(f["positions"]) for f in state.get("levels", {}).values())
        print(f"## {path.parent.name}: {len(state.get('levels', {}))} levels, {total:,} positions\n")
        print(table(state, timed))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
