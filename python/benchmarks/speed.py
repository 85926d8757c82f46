"""Speed of the Python package against the command line (figures in python/README.md).

    target/pyenv/bin/python python/benchmarks/speed.py [--matches 50000] [--seed 1]
        [--detail round] [--threads 0] [--moves 1000000] [--repeat 3]

1. simulate: the same run (same matches, seed, detail and threads, random against random)
   through `rajapasu simulate` (the binary, target/release/rajapasu) and through
   `rajapasu.simulate_to` (the same job from Python) and `rajapasu.simulate` (the job, then
   the tables read into polars), in matches per second; best of --repeat runs each, the
   runs of the three interleaved so that a load on the machine hits them alike.
2. Moves per second of a tight Python loop: random legal moves (`legal_moves()`, `Rng.below`)
   played with `Position.play` (returns a Move) or `Position.play_fast` (the laps only),
   starting again at the round's end; with `Match.play`, starting again at the match's end;
   and the batch call `Position.play_random` (a whole round in one call).
3. A Python callable as a player: the cost per decision over the built-in random player.

A benchmark measures; nothing here passes or fails (the tests never time anything).
"""

import argparse
import os
import pathlib
import resource
import shutil
import subprocess
import tempfile
import time

import rajapasu

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cpu_seconds(who):
    """User plus system CPU time of this process (all its threads) or of its finished children."""
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def bench_simulate(args):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="rajapasu-bench-"))
    run = dict(matches=args.matches, seed=args.seed, detail=args.detail, threads=args.threads)
    try:
        def cli():
            shutil.rmtree(tmp / "cli", ignore_errors=True)
            subprocess.run(
                [args.binary, "simulate", "--matches", str(args.matches), "--seed", str(args.seed), "--detail", args.detail,
                 "--threads", str(args.threads), "--quiet", "--out", str(tmp / "cli")],
                check=True,
            )  # fmt: skip

        def py_to():
            shutil.rmtree(tmp / "py", ignore_errors=True)
            rajapasu.simulate_to(tmp / "py", **run)

        def py_frames():
            rajapasu.simulate(**run)

        runs = [("rajapasu simulate (CLI)", cli, resource.RUSAGE_CHILDREN), ("rajapasu.simulate_to", py_to, resource.RUSAGE_SELF),
                ("rajapasu.simulate (+ polars read)", py_frames, resource.RUSAGE_SELF)]  # fmt: skip
        wall = {name: float("inf") for name, _, _ in runs}
        cpu = dict(wall)
        for _ in range(args.repeat):
            for name, f, who in runs:
                c, t = cpu_seconds(who), time.perf_counter()
                f()
                wall[name] = min(wall[name], time.perf_counter() - t)
                cpu[name] = min(cpu[name], cpu_seconds(who) - c)
        print(f"simulate --matches {args.matches} --seed {args.seed} --detail {args.detail} --threads {args.threads}, best of {args.repeat}:")
        cli_name = runs[0][0]
        for name, _, _ in runs:
            print(f"  {name:36} {args.matches / wall[name]:9,.0f} matches/s ({wall[name]:.2f} s, {wall[cli_name] / wall[name]:6.1%} of the CLI's)"
                  f"  {args.matches / cpu[name]:9,.0f} matches per CPU-second ({cpu[name]:.2f} s, {cpu[cli_name] / cpu[name]:6.1%})")  # fmt: skip
        # The same rows, or the comparison means nothing: the manifests differ only in times and command.
        manifests = [rajapasu.read_dataset(tmp / d, manifest=True)[1] for d in ("cli", "py")]
        differ = {k for k in manifests[0] if manifests[0][k] != manifests[1].get(k)}
        assert differ <= {"started", "finished", "seconds", "command"}, f"the CLI's and Python's datasets differ in {differ}"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def random_loop(method, moves, rng):
    """Random legal moves through Position.METHOD until `moves` were played, a fresh round
    at each round's end. Returns moves per second."""
    opening = rajapasu.Position.opening()
    below = rng.below
    played = 0
    t = time.perf_counter()
    while played < moves:
        p = opening.clone()
        play = getattr(p, method)
        legal_moves = p.legal_moves
        legal = legal_moves()
        while legal:
            play(legal[below(len(legal))])
            played += 1
            legal = legal_moves()
    return played / (time.perf_counter() - t)


def match_loop(moves, rng):
    """Random legal moves through Match.play, a fresh match at each match's end."""
    below = rng.below
    played = 0
    t = time.perf_counter()
    while played < moves:
        m = rajapasu.Match()
        play, legal_moves = m.play, m.legal_moves
        legal = legal_moves()
        while legal:
            play(legal[below(len(legal))])
            played += 1
            legal = legal_moves()
    return played / (time.perf_counter() - t)


def bench_moves(args):
    rng = rajapasu.Rng(args.seed)
    print(f"tight loops, {args.moves:,} moves each, best of {args.repeat}:")
    rows = [
        ("Position.play loop (legal_moves, below, play)", lambda: random_loop("play", args.moves, rng)),
        ("Position.play_fast loop", lambda: random_loop("play_fast", args.moves, rng)),
        ("Match.play loop (to each match's end)", lambda: match_loop(args.moves, rng)),
    ]
    for name, f in rows:
        print(f"  {name:52} {max(f() for _ in range(args.repeat)):12,.0f} moves/s")
    opening = rajapasu.Position.opening()

    def batch():
        played = 0
        t = time.perf_counter()
        while played < args.moves:
            played += opening.clone().play_random(rng)
        return played / (time.perf_counter() - t)

    print(f"  {'Position.play_random (batch: one call per round)':52} {max(batch() for _ in range(args.repeat)):12,.0f} moves/s")


def python_random(position, rng):
    candidates = position.candidates()
    legal = position.legal_moves()
    while True:
        pit = candidates[rng.below(len(candidates))]
        if pit in legal:
            return pit
        candidates.remove(pit)


def bench_player(matches):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="rajapasu-bench-"))
    try:
        t = time.perf_counter()
        rajapasu.simulate_to(tmp / "builtin", matches=matches, detail="match", threads=1)
        builtin = time.perf_counter() - t
        t = time.perf_counter()
        rajapasu.simulate_to(tmp / "python", matches=matches, detail="match", south=python_random, north=python_random, threads=1)
        python = time.perf_counter() - t
        moves = rajapasu.read_dataset(tmp / "python")["matches"]["moves"].sum()
        print(f"Python player (both seats, 1 thread): {python:.2f} s against {builtin:.2f} s built in for {moves:,} decisions: "
              f"{1e6 * (python - builtin) / moves:.2f} us per decision")  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--detail", default="round")
    ap.add_argument("--threads", type=int, default=0, help="0: one per core, as the command line's default")
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--player-matches", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=["simulate", "moves", "player"], help="run one part only")
    ap.add_argument("--binary", default=os.environ.get("RAJAPASU_BIN", str(ROOT / "target" / "release" / "rajapasu")))
    args = ap.parse_args()
    if args.only in (None, "simulate"):
        bench_simulate(args)
    if args.only in (None, "moves"):
        bench_moves(args)
    if args.only in (None, "player"):
        bench_player(args.player_matches)


if __name__ == "__main__":
    main()
