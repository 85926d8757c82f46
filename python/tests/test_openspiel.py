"""The OpenSpiel game passes OpenSpiel's own consistency checks, and a random match played
through it is the match `rajapasu replay` prints for its moves."""

import pickle

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation

import rajapasu.openspiel  # noqa: F401  (registers raja_pasu)
from test_env import matches_replay, replay

SMALL = "raja_pasu(pits_per_row=4,seeds_per_pit=3)"


def test_the_game_is_registered_with_a_parameter_for_every_switch():
    game = pyspiel.load_game("raja_pasu(pits_per_row=4,seeds_per_pit=4)")
    assert game.num_distinct_actions() == 4 and game.num_players() == 2
    t = game.get_type()
    assert t.short_name == "raja_pasu"
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    params = game.get_parameters()
    assert set(rajapasu.switches()) <= set(params) and {"first", "max_round_moves"} <= set(params)
    with pytest.raises(Exception, match="final_four"):
        pyspiel.load_game("raja_pasu(final_four=sideways)")


@pytest.mark.parametrize("name", [SMALL, "raja_pasu(pits_per_row=5,seeds_per_pit=4,final_four=stays,endless=stop,first=north)",
                                  "raja_pasu(pits_per_row=3,seeds_per_pit=2,max_rounds=2)"])  # fmt: skip
def test_random_sim_test_with_serialization(name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=5, serialize=True, verbose=False)


def test_serialization_round_trips_a_state():
    game = pyspiel.load_game(SMALL)
    state = game.new_initial_state()
    for a in [0, 1, 2, 3, 0]:
        legal = state.legal_actions()
        state.apply_action(legal[a % len(legal)])
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and state2.history() == state.history() and str(state2) == str(state)
    assert state2.observation_tensor(0) == state.observation_tensor(0)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert len(state.history()) == 5, "a clone is independent"
    assert pickle.loads(pickle.dumps(game)).get_parameters() == game.get_parameters()


def test_the_observer_sees_the_position_from_each_side():
    game = pyspiel.load_game(SMALL)
    state = game.new_initial_state()
    state.apply_action(0)
    obs = make_observation(game)
    views = []
    for player in (0, 1):
        obs.set_from(state, player)
        views.append(obs.tensor.copy())
        assert np.array_equal(obs.tensor, state.observation_tensor(player))
        assert obs.string_from(state, player) == state.observation_string(player)
    p = 4
    # Each side's own row comes first; the side to move is marked.
    assert list(views[0][:p]) == list(views[1][p : 2 * p]) and list(views[0][p : 2 * p]) == list(views[1][:p])
    mover = state.current_player()
    assert views[mover][2 * p + 5] == 1 and views[1 - mover][2 * p + 5] == 0
    assert len(views[0]) == game.observation_tensor_size() == 2 * p + 7
    # Information state: the public history of a perfect-information game.
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert info.string_from(state, 0) == state.history_str()


@pytest.mark.parametrize("rules", [{"pits_per_row": 4, "seeds_per_pit": 3}, {"pits_per_row": 6, "seeds_per_pit": 5, "skip_origin": True}])
def test_a_random_match_through_the_game_is_the_match_rajapasu_replay_prints(rules):
    game = pyspiel.load_game("raja_pasu", {**rules, "first": "north"})
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    seen = []
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
        seen.append([int(x) for x in state.observation_tensor(0)])
    lines = replay("north", state.history(), rules)
    matches_replay(seen, lines, rules["pits_per_row"])
    winner = lines[-1]["winner"]
    assert state.returns() == ([0.0, 0.0] if winner is None else [1.0, -1.0] if winner == "south" else [-1.0, 1.0])


def test_the_mcts_example_agrees_with_the_match_table(tmp_path):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "openspiel_mcts.py"
    spec = importlib.util.spec_from_file_location("openspiel_mcts", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    # 4x2: a start that the starter wins (a drawn start, as on 4x3, runs to max_rounds).
    rows = example.run(pits=4, seeds=2, games=4, simulations=50, opponents=("mcts:16", "perfect:match"), tables=tmp_path)
    assert [(r[0], r[1]) for r in rows] == [("mcts:16", "south"), ("mcts:16", "north"), ("perfect:match", "south"), ("perfect:match", "north")]
    for spec_, seat, value, results in rows:
        assert len(results) == 2 and value == ("win" if seat == "south" else "loss")
        if spec_ == "perfect:match":
            assert example.RANK[results[0]] >= example.RANK[value]
