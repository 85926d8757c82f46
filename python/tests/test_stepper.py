"""The environments' native stepper agrees with rajapasu.Match move for move: its legal moves,
its round ends, and its observation (computed here again from the Match's own position), in
each of the forms the environments read (a list, PettingZoo's arrays, OpenSpiel's tensor)."""

import copy
import pickle

import numpy as np
import pytest

import rajapasu
from rajapasu._game import SIDES, Stepper, observation_size

RULES = [
    {"pits_per_row": 4, "seeds_per_pit": 4},
    {"pits_per_row": 5, "seeds_per_pit": 3, "final_four": "sower", "pussa_chain": True},
    {"pits_per_row": 6, "seeds_per_pit": 5, "skip_origin": True, "next_starter": "round_winner"},
    {},
]


def observation_from_match(m: rajapasu.Match, side: str, starter: str, over: bool) -> list:
    """The observation of `side`, as `rajapasu._game` documents it, from the Match's API."""
    pos = m.position
    p = pos.rules.pits_per_row
    x = SIDES.index(side)
    rows = [pos.board[:p], pos.board[p:]]
    reserves = pos.reserves
    closed = [p - len(pos.open[s]) for s in SIDES]
    return (
        list(rows[x]) + list(rows[1 - x]) + [reserves[x], reserves[1 - x], closed[x], closed[1 - x], m.round]
        + [int(not over and m.turn == side), int(starter == side)]
    )  # fmt: skip


@pytest.mark.parametrize("rules", RULES)
def test_a_random_match_steps_as_the_engine_s_match_and_observes_it_in_every_form(rules):
    ruleset = rajapasu.Ruleset(**rules)
    p = ruleset.pits_per_row
    n = observation_size(p)
    stepper, m = Stepper(ruleset, "north"), rajapasu.Match(ruleset, "north")
    rng = np.random.default_rng(3)
    starter, ends = m.turn, 0
    buffer = bytearray(4 * n)
    tensor = np.frombuffer(buffer, np.float32)
    while not m.is_over:
        assert stepper.legal_moves() == m.legal_moves()
        for side in SIDES:
            expected = observation_from_match(m, side, starter, over=False)
            assert stepper.observe(side) == expected
            raw = stepper.observation_bytes(side)
            assert np.frombuffer(raw, np.int64, n).tolist() == expected
            mask = np.frombuffer(raw, np.int8, p, 8 * n)
            assert np.flatnonzero(mask).tolist() == (m.legal_moves() if m.turn == side else [])
            stepper.write_observation(side, buffer)
            assert tensor.tolist() == [float(v) for v in expected]
        pit = int(rng.choice(m.legal_moves()))
        end = stepper.play(pit)
        move = m.play(pit)
        assert end == move.round_end
        if end is not None:
            ends += 1
            starter = m.turn
        assert stepper.round == m.round and stepper.holdings == m.holdings and stepper.moves == m.moves
    assert ends >= 1 and stepper.is_over and stepper.winner == m.winner and stepper.legal_moves() == []
    assert stepper.player is None and stepper.to_trace() == m.to_trace()


def test_a_copy_and_a_pickled_stepper_are_the_same_match_and_independent():
    stepper = Stepper(rajapasu.Ruleset(pits_per_row=4, seeds_per_pit=3, final_four="stays"), "north", 50)
    for _ in range(9):
        stepper.play(stepper.legal_moves()[-1])
    for other in (stepper.clone(), copy.deepcopy(stepper), pickle.loads(pickle.dumps(stepper))):
        assert type(other) is Stepper
        assert other.moves == stepper.moves and other.max_round_moves == 50 and other.first == "north"
        assert other.observe("south") == stepper.observe("south") and other.rules == stepper.rules
        other.play(other.legal_moves()[0])
        assert len(other.moves) == len(stepper.moves) + 1


def test_illegal_moves_raise_naming_why_and_change_nothing():
    stepper = Stepper(rajapasu.Ruleset(pits_per_row=4, seeds_per_pit=4))
    before = stepper.observe("south")
    for pit, reason in ((-1, "pit -1 is not a legal move"), (4, "no such pit"), (2**40, "no such pit")):
        with pytest.raises(ValueError, match=reason):
            stepper.play(pit)
    assert stepper.observe("south") == before and stepper.moves == []
    with pytest.raises(rajapasu.UsageError, match="max_round_moves 0"):
        Stepper(max_round_moves=0)
    with pytest.raises(rajapasu.UsageError, match="first"):
        Stepper(first="east")
    with pytest.raises(ValueError, match="takes 60 bytes"):
        stepper.write_observation("south", bytearray(8))


def test_a_round_still_going_after_max_round_moves_is_cut():
    stepper = Stepper(rajapasu.Ruleset(pits_per_row=4, seeds_per_pit=4), "south", 2)
    m = rajapasu.Match(rajapasu.Ruleset(pits_per_row=4, seeds_per_pit=4))
    for _ in range(2):
        pit = m.legal_moves()[0]
        m.play(pit)
        stepper.play(pit)
    assert m.round == 1 and not m.is_over, "the first two moves of this match do not end round 1"
    assert stepper.cut and stepper.is_over and stepper.truncated and stepper.winner is None
    assert stepper.legal_moves() == [] and stepper.player is None
    assert stepper.observe("south")[2 * 4 + 5] == 0 and stepper.observe("north")[2 * 4 + 5] == 0
    with pytest.raises(ValueError, match="cut after 2 moves"):
        stepper.play(m.legal_moves()[0])
