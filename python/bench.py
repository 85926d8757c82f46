"""Speed of the Python package against the command line (figures in python/README.md).

    target/pyenv/bin/python python/bench.py [--matches 100000] [--moves 1000000]

1. simulate: the same run (random vs random, detail round) through `rajapasu simulate` and
   through `rajapasu.simulate_to` (the same job from Python) and `rajapasu.simulate` (the job,
   then the tables read into polars), in matches per second; best of --repeat runs each.
2. Position: moves per second from a Python loop: `play` (returns a Move), `play_fast` (the
   laps only), and the batch call `play_random` (a whole round in one call).
3. A Python callable as a player: the cost per decision over the built-in random player.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

import rajapasu

ROOT = pathlib.Path(__file__).resolve().parents[1]


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_simulate(matches, repeat, binary):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="rajapasu-bench-"))
    try:
        def cli():
            shutil.rmtree(tmp / "cli", ignore_errors=True)
            subprocess.run([binary, "simulate", "--matches", str(matches), "--seed", "1", "--quiet", "--out", str(tmp / "cli")], check=True)

        def py_to():
            shutil.rmtree(tmp / "py", ignore_errors=True)
            rajapasu.simulate_to(tmp / "py", matches=matches, seed=1)

        def py_frames():
            rajapasu.simulate(matches=matches, seed=1)

        for name, f in [("rajapasu simulate (CLI)", cli), ("rajapasu.simulate_to", py_to), ("rajapasu.simulate (+ polars read)", py_frames)]:
            s = best(f, repeat)
            print(f"{name:36} {matches / s:12,.0f} matches/s  ({s:.2f} s for {matches:,})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench_position(moves):
    rng = rajapasu.Rng(1)
    opening = rajapasu.Position.opening()
    # Random playouts as a Python loop would write them, through each call.
    for name, method in [("Position.play", "play"), ("Position.play_fast", "play_fast")]:
        played = 0
        t = time.perf_counter()
        while played < moves:
            p = opening.clone()
            legal = p.legal_moves()
            play = getattr(p, method)
            while legal:
                play(legal[rng.below(len(legal))])
                played += 1
                legal = p.legal_moves()
        s = time.perf_counter() - t
        print(f"{name + ' loop (with legal_moves, below)':52} {played / s:12,.0f} moves/s")
    # The bare call, pits precomputed: replay one round's moves again and again.
    p = opening.clone()
    pits = []
    while p.legal_moves():
        pits.append(p.legal_moves()[0])
        p.play_fast(pits[-1])
    played = 0
    t = time.perf_counter()
    while played < moves:
        q = opening.clone()
        f = q.play_fast
        for pit in pits:
            f(pit)
        played += len(pits)
    s = time.perf_counter() - t
    print(f"{'Position.play_fast alone (a fixed round replayed)':52} {played / s:12,.0f} moves/s")
    played = 0
    t = time.perf_counter()
    while played < moves:
        played += opening.clone().play_random(rng)
    s = time.perf_counter() - t
    print(f"{'Position.play_random (batch: one call per round)':52} {played / s:12,.0f} moves/s")


def python_random(position, rng):
    candidates = position.candidates()
    legal = position.legal_moves()
    while True:
        pit = candidates[rng.below(len(candidates))]
        if pit in legal:
            return pit
        candidates.remove(pit)


def bench_player(matches):
    builtin = best(lambda: rajapasu.simulate_to(tempfile.mkdtemp() + "/d", matches=matches, detail="match", threads=1), 1)
    t = time.perf_counter()
    out = tempfile.mkdtemp() + "/d"
    m = rajapasu.simulate_to(out, matches=matches, detail="match", south=python_random, north=python_random, threads=1)
    python = time.perf_counter() - t
    moves = rajapasu.read_dataset(out)["matches"]["moves"].sum()
    print(f"Python player (both seats, 1 thread): {python:.2f} s against {builtin:.2f} s built in for {moves:,} decisions: "
          f"{1e6 * (python - builtin) / moves:.2f} us per decision")
    assert m["south"] == "python:python_random"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=100_000)
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--player-matches", type=int, default=2_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--binary", default=os.environ.get("RAJAPASU_BIN", str(ROOT / "target" / "release" / "rajapasu")))
    args = ap.parse_args()
    bench_simulate(args.matches, args.repeat, args.binary)
    bench_position(args.moves)
    bench_player(args.player_matches)


if __name__ == "__main__":
    main()
