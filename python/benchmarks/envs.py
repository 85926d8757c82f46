"""Steps per second of the PettingZoo environment and of the OpenSpiel game in a random-play
loop, beside rajapasu's own Match.play and Position.play and OpenSpiel's C++ Kalah
(`mancala`: OpenSpiel has no game named `kalah`) and Oware stepped in the same Python loop
(figures in python/README.md).

    target/pyenv/bin/python python/benchmarks/envs.py [--steps 200000] [--repeat 5]

Every loop asks for the legal moves, draws one with Python's `random` and plays it, starting
a new match (or round, for Position) at the end: the cost of a step as a learner sees it.
A benchmark measures; nothing here passes or fails (the tests never time anything).
"""

import argparse
import random
import time

import numpy as np
import pyspiel

import rajapasu
import rajapasu.openspiel  # noqa: F401  (registers raja_pasu)
from rajapasu.env import raja_pasu_v0


def pettingzoo_loop(steps, rng, wrapped=True):
    env = raja_pasu_v0.env() if wrapped else raja_pasu_v0.raw_env()
    env.reset(seed=1)
    done = 0
    t = time.perf_counter()
    while done < steps:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        done += 1
    return done / (time.perf_counter() - t)


def openspiel_loop(name, steps, rng):
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    done = 0
    t = time.perf_counter()
    while done < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1
    return done / (time.perf_counter() - t)


def match_loop(steps, rng):
    m = rajapasu.Match()
    done = 0
    t = time.perf_counter()
    while done < steps:
        if m.is_over:
            m = rajapasu.Match()
        m.play(rng.choice(m.legal_moves()))
        done += 1
    return done / (time.perf_counter() - t)


def position_loop(steps, rng):
    opening = rajapasu.Position.opening()
    p = opening.clone()
    done = 0
    t = time.perf_counter()
    while done < steps:
        legal = p.legal_moves()
        if not legal:
            p = opening.clone()
            continue
        p.play(rng.choice(legal))
        done += 1
    return done / (time.perf_counter() - t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5, help="rounds; each round runs every loop once, in turn")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows = [
        ("OpenSpiel C++ mancala (Kalah), same loop", lambda: openspiel_loop("mancala", args.steps, rng)),
        ("OpenSpiel C++ oware, same loop", lambda: openspiel_loop("oware", args.steps, rng)),
        ("OpenSpiel raja_pasu (Python game)", lambda: openspiel_loop("raja_pasu", args.steps, rng)),
        ("PettingZoo raja_pasu_v0.env() (wrapped)", lambda: pettingzoo_loop(args.steps, rng)),
        ("PettingZoo raja_pasu_v0.raw_env()", lambda: pettingzoo_loop(args.steps, rng, wrapped=False)),
        ("rajapasu.Match.play", lambda: match_loop(args.steps, rng)),
        ("rajapasu.Position.play", lambda: position_loop(args.steps, rng)),
    ]
    # Interleaved: every round runs each loop once, so a busy machine slows all of them alike;
    # each loop's time per step is compared with the C++ game's in the same round.
    rates = [[] for _ in rows]
    for _ in range(args.repeat):
        for i, (_, f) in enumerate(rows):
            rates[i].append(f())
    print(f"random play, default rules (7x7), {args.steps:,} steps a loop, {args.repeat} interleaved rounds:")
    print(f"  {'':44} {'steps/s (min-max)':>25}   time per step / the C++ mancala's (min-max)")
    for (name, _), r in zip(rows, rates):
        ratios = [base / x for base, x in zip(rates[0], r)]
        print(f"  {name:44} {min(r):>11,.0f} - {max(r):>11,.0f}   {min(ratios):5.2f}x - {max(ratios):5.2f}x")


if __name__ == "__main__":
    main()
