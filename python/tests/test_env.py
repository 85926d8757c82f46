"""The PettingZoo environment passes PettingZoo's own checks, the Gymnasium wrapper
Gymnasium's, and a random match played through either is the match `rajapasu replay` prints
for its moves."""

import json
import warnings
from xml.etree import ElementTree

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, max_cycles_test, render_test, seed_test

import rajapasu
from conftest import cli
from rajapasu.env import RajaPasuSingleEnv, raja_pasu_v0

SMALL = {"pits_per_row": 4, "seeds_per_pit": 4}


@pytest.mark.parametrize("kwargs", [{}, SMALL, {**SMALL, "reward": "captures", "first": "random"},
                                    {"pits_per_row": 5, "final_four": "sower", "endless": "stop", "max_rounds": 3}])  # fmt: skip
def test_pettingzoo_api_test(kwargs):
    api_test(raja_pasu_v0.env(**kwargs), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(lambda **_: raja_pasu_v0.env(**SMALL, first="random"), num_cycles=200)


def is_svg(text):
    return isinstance(text, str) and ElementTree.fromstring(text).tag == "{http://www.w3.org/2000/svg}svg"


def page_data(html):
    """The match data of a replay page (its JSON script element)."""
    start = html.index('<script type="application/json" id="match-data">')
    start = html.index(">", start) + 1
    return json.loads(html[start : html.index("</script>", start)])


def test_pettingzoo_render_test():
    checks = {"svg": is_svg, "html": lambda page: page.startswith("<!DOCTYPE html>") and page_data(page)["v"] == 2}
    render_test(lambda render_mode=None: raja_pasu_v0.env(render_mode=render_mode, **SMALL), custom_tests=checks)


def test_the_picture_is_the_replay_page_s_and_the_page_is_the_match_so_far(tmp_path):
    rules = {"pits_per_row": 5, "seeds_per_pit": 4, "final_four": "sower"}
    pictures = {mode: raja_pasu_v0.env(render_mode=mode, first="north", **rules) for mode in ("svg", "html")}
    rng = np.random.default_rng(8)
    for env in pictures.values():
        env.reset(seed=8)
    moves = []
    while len(moves) < 23 and not pictures["svg"].unwrapped.game.is_over:
        obs, *_ = pictures["svg"].last()
        pit = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        moves.append(pit)
        for env in pictures.values():
            env.step(pit)
    flags = ["--first", "north", "--moves", ",".join(map(str, moves))] + sum((["--rule", f"{k}={v}"] for k, v in rules.items()), [])
    assert len(moves) > 10
    out = tmp_path / "state.svg"
    cli("show", *flags, "--svg", "--ply", len(moves), "--out", out)
    svg = pictures["svg"].render()
    assert is_svg(svg) and svg == out.read_text()
    data = page_data(pictures["html"].render())
    assert data["plies"] == data["initial_ply"] == len(moves) and data["first"] == "north"
    assert data["rules_hash"] == rajapasu.Ruleset(**rules).hash and data["pits_per_row"] == 5
    cli("show", *flags, "--out", tmp_path / "page.html")
    shown = page_data((tmp_path / "page.html").read_text())
    assert {k: v for k, v in data.items() if k not in ("title", "initial_ply")} == {k: v for k, v in shown.items() if k not in ("title", "initial_ply")}


def random_match(env, seed):
    """Plays random legal actions to the end; returns the actions and, after each, the
    observation of player_0 (South) and the match's state."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, seen = [], []
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        env.step(action)
        seen.append(env.unwrapped.observe("player_0")["observation"].tolist())
    return actions, seen


def replay(first, moves, rules):
    args = ["replay", "--first", first, "--moves", ",".join(map(str, moves))]
    for k, v in rules.items():
        args += ["--rule", f"{k}={str(v).lower()}"]
    return [json.loads(line) for line in cli(*args).stdout.splitlines()]


def after_each_move(lines):
    """For each move line, the last line with a board before the next move: the position the
    next mover sees (the next round's start when the move ended a round)."""
    out = []
    for line in lines:
        if line["kind"] == "move":
            out.append(line)
        elif line["kind"] in ("round_start",) and out:
            out[-1] = line
    return out


def matches_replay(seen, lines, p):
    states = after_each_move(lines)
    assert len(states) == len(seen)
    for obs, line in zip(seen, states):
        if line is states[-1] and lines[-1]["kind"] == "match_end":
            break  # the match is over: nothing to compare with
        board = obs[: 2 * p]
        assert board == line["board"], (obs, line)
        assert obs[2 * p : 2 * p + 2] == line["reserve"]
        assert obs[2 * p + 4] == line["round"]


@pytest.mark.parametrize("rules", [SMALL, {"pits_per_row": 5, "seeds_per_pit": 4, "pussa_chain": True, "next_starter": "round_winner"}])
def test_a_random_match_through_the_environment_is_the_match_rajapasu_replay_prints(rules):
    env = raja_pasu_v0.env(first="north", **rules)
    actions, seen = random_match(env, seed=11)
    lines = replay("north", actions, rules)
    matches_replay(seen, lines, rules["pits_per_row"])
    end = lines[-1]
    assert end["kind"] == "match_end"
    winner = env.unwrapped.infos if env.unwrapped.agents else None
    assert env.unwrapped.game.winner == end["winner"]
    assert env.unwrapped.trace() == cli("replay", "--first", "north", "--moves", ",".join(map(str, actions)),
                                        *sum((["--rule", f"{k}={str(v).lower()}"] for k, v in rules.items()), [])).stdout  # fmt: skip
    del winner


@pytest.mark.parametrize("seed,rules", [(2, SMALL), (3, SMALL), (2, {"pits_per_row": 4, "seeds_per_pit": 3})])
def test_rewards_at_the_end_go_to_the_winner_and_captures_per_round_add_up(seed, rules):
    # On 4x4 North wins with seed 2, South with seed 3; on 4x3 random play goes on for 1,000
    # rounds (unfinished, R14: truncated, no reward).
    for reward in ("match", "captures"):
        env = raja_pasu_v0.env(reward=reward, **rules)
        env.reset(seed=seed)
        totals = {a: 0.0 for a in env.possible_agents}
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            totals[agent] += r
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        winner = env.unwrapped.game.winner
        assert totals["player_0"] == pytest.approx(-totals["player_1"])
        if reward == "match":
            expected = {None: 0.0, "south": 1.0, "north": -1.0}[winner]
            assert totals == {"player_0": expected, "player_1": -expected}


def test_max_rounds_and_endless_play_truncate():
    env = raja_pasu_v0.env(max_rounds=1, **SMALL)
    env.reset()
    while not env.unwrapped.game.is_over:
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    game = env.unwrapped.game
    if game.winner is None:
        assert all(env.unwrapped.truncations.values()) and not any(env.unwrapped.terminations.values())
    cut = raja_pasu_v0.env(max_round_moves=3, **SMALL)
    cut.reset()
    for _ in range(3):
        obs, *_ = cut.last()
        cut.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert cut.unwrapped.game.cut or cut.unwrapped.game.match.round > 1
    if cut.unwrapped.game.cut:
        _, reward, term, trunc, info = cut.last()
        assert trunc and not term and reward == 0 and info["cut"]


def test_bad_arguments_are_usage_errors_naming_them():
    with pytest.raises(rajapasu.UsageError, match="pits_per_rows"):
        raja_pasu_v0.env(pits_per_rows=4)
    with pytest.raises(rajapasu.UsageError, match="final_four"):
        raja_pasu_v0.env(final_four="sideways")
    with pytest.raises(rajapasu.UsageError, match="reward"):
        raja_pasu_v0.env(reward="points")
    env = raja_pasu_v0.env(**SMALL)
    env.reset()
    obs, *_ = env.last()
    illegal = [i for i in range(4) if not obs["action_mask"][i]]
    if illegal:
        with pytest.raises(rajapasu.UsageError, match="not a legal move"):
            env.unwrapped.step(illegal[0])


@pytest.mark.parametrize("opponent,seat", [("random", "south"), ("greedy", "north"), ("mcts:16", "random")])
def test_the_gymnasium_wrapper_passes_check_env(opponent, seat):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(RajaPasuSingleEnv(opponent=opponent, seat=seat, **SMALL), skip_render_check=True)


def test_the_gymnasium_wrapper_plays_a_match_against_the_built_in_player():
    env = RajaPasuSingleEnv(opponent="greedy", seat="north", **SMALL)
    obs, info = env.reset(seed=4)
    done, total, steps = False, 0.0, 0
    while not done:
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += reward
        done = term or trunc
        steps += 1
    winner = env.aec.game.winner
    assert total == (0.0 if winner is None else 1.0 if winner == "north" else -1.0)
    # The opponent's moves are the greedy player's own: the same seed gives the same match.
    again = RajaPasuSingleEnv(opponent="greedy", seat="north", **SMALL)
    _, info = again.reset(seed=4)
    for _ in range(steps):
        _, _, term, trunc, info = again.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert again.aec.game.match.moves == env.aec.game.match.moves


def test_a_built_in_player_chooses_as_in_a_simulated_match(tmp_path):
    # The simulator's match 1 (seed 5, North first), then the same players asked move by move.
    tables = rajapasu.simulate(2, seed=5, south="minimax:2", north="greedy", first="north", detail="move",
                               rules=SMALL, threads=1)  # fmt: skip
    moves = tables["moves"].filter(tables["moves"]["match_id"] == 1)["pit"].to_list()
    m = rajapasu.Match(rajapasu.Ruleset(**SMALL), first="north")
    players = {s: rajapasu.BuiltinPlayer(spec, seed=5, match_index=1, seat=s) for s, spec in (("south", "minimax:2"), ("north", "greedy"))}
    while not m.is_over:
        pit = players[m.turn].choose(m)
        assert pit in m.legal_moves()
        m.play(pit)
    assert m.moves == moves
    with pytest.raises(rajapasu.UsageError, match="minimax"):
        rajapasu.BuiltinPlayer("minimax:0")
