"""OpenSpiel's MCTS bot against rajapasu's players on a small board, through the OpenSpiel
game `raja_pasu` (every move played by rajapasu's engine).

    python python/examples/openspiel_mcts.py [--pits 4] [--seeds 2] [--games 6]
        [--simulations 200] [--opponents mcts:64,perfect:match] [--tables DIR]

For each opponent, half the matches with OpenSpiel's MCTS starting round 1, half with the
opponent starting. The exact match value of the start (`rajapasu.solve_match`, solved once
into the tables directory) says what perfect play guarantees: `perfect:match` never does
worse than that value (it keeps a won match won and a drawn one at least drawn, R17), which
the script checks. A start the starter wins (4x2, 5x2, 6x2) ends in a few rounds; a drawn
start (3x3, 4x3) lets matches run to max_rounds, minutes a match at 100 simulations.
"""

from __future__ import annotations

import argparse
import tempfile
from typing import Dict, List

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import rajapasu
import rajapasu.openspiel  # noqa: F401  (registers raja_pasu)

RANK = {"loss": 0, "draw": 1, "win": 2}


def outcome(returns: List[float], player: int) -> str:
    r = returns[player]
    return "win" if r > 0 else "loss" if r < 0 else "draw"


def play(game, first: str, bots: Dict[int, object]) -> List[float]:
    """One match; `bots[player]` is an OpenSpiel bot or a rajapasu.BuiltinPlayer."""
    state = game.new_initial_state()
    while not state.is_terminal():
        bot = bots[state.current_player()]
        if isinstance(bot, rajapasu.BuiltinPlayer):
            action = bot.choose(state.stepper.match)
        else:
            action = bot.step(state)
        state.apply_action(action)
    return state.returns()


def run(pits=4, seeds=2, games=6, simulations=200, opponents=("mcts:64", "perfect:match"), tables=None, seed=1):
    """Plays the matches; returns rows (opponent, opponent's seat, the start's value for the
    opponent by the match table, the opponent's results) and checks the perfect player."""
    tables = tables or tempfile.mkdtemp(prefix="rajapasu-tables-")
    value_south_first = rajapasu.solve_match(pits_per_row=pits, seeds_per_pit=seeds, starter="south", tables=tables)["value"]
    rows = []
    for spec in opponents:
        for seat in ("south", "north"):
            game = pyspiel.load_game("raja_pasu", {"pits_per_row": pits, "seeds_per_pit": seeds, "first": "south"})
            player = 0 if seat == "south" else 1
            # The value is the starter's (South): the opponent's is it, or its opposite.
            flip = {"win": "loss", "loss": "win", "draw": "draw"}
            value = value_south_first if seat == "south" else flip[value_south_first]
            results = []
            for g in range(games // 2):
                rng = np.random.RandomState(seed + g)
                bot = mcts.MCTSBot(game, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
                opponent = rajapasu.BuiltinPlayer(spec, seed=seed, match_index=g, seat=seat)
                results.append(outcome(play(game, "south", {player: opponent, 1 - player: bot}), player))
            if spec.startswith("perfect:match"):
                worse = [r for r in results if RANK[r] < RANK[value]]
                assert not worse, f"perfect:match did worse than the table's {value} as {seat}: {results}"
            rows.append((spec, seat, value, results))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pits", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--opponents", default="mcts:64,perfect:match")
    ap.add_argument("--tables", default=None, help="the match tables directory (default: a new temporary one)")
    args = ap.parse_args()
    rows = run(args.pits, args.seeds, args.games, args.simulations, args.opponents.split(","), args.tables)
    print(f"OpenSpiel MCTS ({args.simulations} simulations, random rollouts) against rajapasu on {args.pits}x{args.seeds}:")
    for spec, seat, value, results in rows:
        counts = {k: results.count(k) for k in ("win", "draw", "loss")}
        print(f"  {spec:16} as {seat:5} (table: {value:4} for it): {counts['win']} won, {counts['draw']} drawn, {counts['loss']} lost")


if __name__ == "__main__":
    main()
