"""Ruleset, Position, Match and Rng against the golden traces and the rules."""

import copy
import json

import pytest

import rajapasu
from conftest import GOLDEN, cli


def golden(name):
    return [json.loads(line) for line in (GOLDEN / name).read_text().splitlines()]


def golden_names():
    return sorted(p.name for p in GOLDEN.glob("*.jsonl"))


def rules_of(header):
    return rajapasu.Ruleset(**header["rules"])


def test_there_are_golden_traces():
    assert len(golden_names()) >= 13


@pytest.mark.parametrize("name", golden_names())
def test_a_match_played_move_by_move_gives_the_golden_trace(name):
    lines = golden(name)
    header = lines[0]
    m = rajapasu.Match(rules_of(header), first=header["first"])
    for line in lines:
        if line["kind"] != "move":
            continue
        assert m.turn == line["player"]
        assert line["pit"] in m.legal_moves()
        mv = m.play(line["pit"])
        assert mv.player == line["player"] and mv.pit == line["pit"]
        assert mv.laps == line["laps"]
        assert [dict(kind=c.kind, by=c.by, pit=c.pit, n=c.n) for c in mv.captures] == line["captures"]
        assert mv.endless == line["endless"]
        assert m.position.board == line["board"] or mv.round_end is not None
    trace = [json.loads(t) for t in m.to_trace().splitlines()]
    assert len(trace) == len(lines)
    assert trace[0]["rules"] == header["rules"] and len(trace[0]["rules_hash"]) == 12
    assert trace[1:] == lines[1:]
    end = lines[-1]
    if end["kind"] == "match_end":
        assert m.is_over and m.winner == end["winner"] and list(m.holdings) == end["holdings"]


def test_round_ends_are_reported_by_the_move_that_ends_them():
    lines = golden("default_south.jsonl")
    m = rajapasu.Match(first="south")
    ends = [line for line in lines if line["kind"] == "round_end"]
    seen = []
    for line in lines:
        if line["kind"] == "move":
            mv = m.play(line["pit"])
            if mv.round_end is not None:
                assert mv.round_over
                seen.append(mv.round_end)
    assert [(e["round"], e["collector"], e["remainder"], list(e["captured"]), list(e["holdings"])) for e in seen] == [
        (e["round"], e["collector"], e["remainder"], e["captured"], e["holdings"]) for e in ends
    ]
    assert seen[-1]["match_over"] and seen[-1]["match_winner"] == lines[-1]["winner"]


def test_the_trace_equals_rajapasu_replay():
    m = rajapasu.Match(rajapasu.Ruleset(pits_per_row=4, seeds_per_pit=3), first="north")
    rng = rajapasu.Rng(17)
    while not m.is_over and m.ply < 60:
        m.play(rng.choice(m.legal_moves()))
    done = cli("replay", "--first", "north", "--rule", "pits_per_row=4", "--rule", "seeds_per_pit=3",
               "--moves", ",".join(map(str, m.moves)))  # fmt: skip
    assert m.to_trace() == done.stdout


def test_the_opening_position():
    p = rajapasu.Position.opening()
    assert p.board == [7] * 14
    assert p.reserves == (0, 0)
    assert p.open == {"south": list(range(7)), "north": list(range(7))}
    assert p.turn == "south" and not p.round_over
    assert p.legal_moves() == list(range(7))
    small = rajapasu.Position.opening(rajapasu.Ruleset(pits_per_row=3, seeds_per_pit=2), starter="north")
    assert small.board == [2] * 6 and small.turn == "north"


def test_a_position_set_up_inside_a_round_is_checked_and_its_totals_never_wrap():
    rules = rajapasu.Ruleset(pits_per_row=4, seeds_per_pit=4)
    p = rajapasu.Position.setup([None, 5, 3, 0, 2, 6, 4, 1], (7, 4), turn="south", rules=rules)
    assert p.board == [0, 5, 3, 0, 2, 6, 4, 1] and p.reserves == (7, 4) and p.turn == "south"
    assert p.open == {"south": [1, 2, 3], "north": [0, 1, 2, 3]}
    assert p.legal_moves() == [1, 2]
    # A reserve near 2**32 must not wrap the total around to the board's 98 (R1).
    with pytest.raises(rajapasu.UsageError, match=r"reserve.*4294967295.*98"):
        rajapasu.Position.setup([7] * 14, (4294967295, 1))
    with pytest.raises(rajapasu.UsageError, match=r"plus reserves are 33; these rules have 32"):
        rajapasu.Position.setup([None, 5, 3, 0, 2, 6, 4, 1], (7, 5), rules=rules)
    with pytest.raises(rajapasu.UsageError, match=r"right end of the row"):
        rajapasu.Position.setup([5, None, 3, 0, 2, 6, 4, 1], (7, 4), rules=rules)


def test_position_play_returns_what_happened_and_clone_is_independent():
    first = golden("default_south.jsonl")[2]
    p = rajapasu.Position.opening()
    q = p.clone()
    r = copy.deepcopy(p)
    mv = p.play(first["pit"])
    assert mv.laps == first["laps"] and mv.sown == sum(first["laps"])
    assert [(c.kind, c.by, c.pit, c.n) for c in mv.captures] == [(c["kind"], c["by"], c["pit"], c["n"]) for c in first["captures"]]
    assert p.board == first["board"] and list(p.reserves) == first["reserve"]
    assert p.turn == "north"
    assert q.board == [7] * 14 and q.turn == "south" and r.board == [7] * 14
    assert q.play_fast(first["pit"]) == len(first["laps"])
    assert q.board == p.board


def test_illegal_moves_raise_value_errors_naming_why():
    p = rajapasu.Position.opening(rajapasu.Ruleset(pits_per_row=3, seeds_per_pit=2))
    with pytest.raises(ValueError, match="pit 5"):
        p.play(5)
    p.play(0)
    # North's pit 0 (global 3) was emptied by South's move (R6: it reached four).
    assert p.turn == "north" and p.board[3] == 0
    with pytest.raises(ValueError, match=r"north cannot play pit 0: the pit is empty \(R4\); legal pits: 1,2"):
        p.play(0)
    assert p.legal_moves() == [1, 2]
    m = rajapasu.Match()
    with pytest.raises(ValueError):
        m.play(7)
    assert m.ply == 0


def test_random_playouts_end_the_round():
    p = rajapasu.Position.opening()
    n = p.play_random(rajapasu.Rng(3))
    assert n > 0 and p.round_over and p.legal_moves() == []
    # Counters are conserved (R1): on the board plus captured equals 98.
    assert sum(p.board) <= 98
    q = rajapasu.Position.opening()
    assert q.play_random(rajapasu.Rng(3)) == n and q.board == p.board
    assert rajapasu.Position.opening().play_random(rajapasu.Rng(3), max_moves=2) == 2


def test_ruleset_switches_and_errors():
    r = rajapasu.Ruleset(pits_per_row=5, final_four="sower", skip_origin=True)
    assert r.pits_per_row == 5 and r.seeds_per_pit == 7
    d = r.as_dict()
    assert d["final_four"] == "sower" and d["skip_origin"] is True and d["pits_per_row"] == 5
    assert sorted(r.non_default()) == ["final_four=sower", "pits_per_row=5", "skip_origin=true"]
    assert r == rajapasu.Ruleset(skip_origin="true", final_four="sower", pits_per_row="5")
    assert r != rajapasu.Ruleset()
    assert r.hash != rajapasu.Ruleset().hash and len(r.hash) == 12
    done = cli("replay", "--rule", "final_four=sideways", "--moves", "0", check=False)
    assert done.returncode == 2
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.Ruleset(final_four="sideways")
    assert str(raised.value).split("rules: ", 1)[1] in done.stderr
    with pytest.raises(rajapasu.UsageError, match="colour"):
        rajapasu.Ruleset(colour="red")
    assert rajapasu.switches()["pits_per_row"] == "7"


def test_the_seat_stream_and_rng_draws():
    a, b = rajapasu.Rng(5), rajapasu.Rng(5)
    draws = [a.below(10) for _ in range(50)]
    assert draws == [b.below(10) for _ in range(50)]
    assert set(draws) <= set(range(10)) and len(set(draws)) > 5
    assert rajapasu.Rng(6).next_u64() != rajapasu.Rng(5).next_u64()
    seat = rajapasu.Rng(5, match_index=3, seat="north")
    assert seat.next_u64() == rajapasu.Rng(5, 3, "north").next_u64()
    assert rajapasu.Rng(5, 3, "south").next_u64() != rajapasu.Rng(5, 3, "north").next_u64()
    x = rajapasu.Rng(1).random()
    assert 0.0 <= x < 1.0
    assert rajapasu.Rng(1).choice(["a", "b", "c"]) in {"a", "b", "c"}
    with pytest.raises(rajapasu.UsageError):
        rajapasu.Rng(1).below(0)
    with pytest.raises(rajapasu.UsageError):
        rajapasu.Rng(1).choice([])
    with pytest.raises(rajapasu.UsageError, match="both"):
        rajapasu.Rng(1, match_index=2)


def round_one(name):
    """The header and the move lines of a golden trace's first round."""
    lines = golden(name)
    moves = []
    for line in lines[1:]:
        if line["kind"] == "round_end":
            break
        if line["kind"] == "move":
            moves.append(line)
    return lines[0], moves


@pytest.mark.parametrize("name", golden_names())
def test_position_play_gives_the_golden_moves_whether_or_not_legal_moves_was_asked(name):
    header, moves = round_one(name)
    # `asked` lists its legal moves before each move (the pit played is then known legal and
    # sown once); `blind` plays without asking (the pit is checked as it is sown).
    asked = rajapasu.Position.opening(rules_of(header), starter=header["first"])
    blind = asked.clone()
    played = []
    for line in moves:
        assert line["pit"] in asked.legal_moves() and not asked.round_over
        for p in (asked, blind):
            mv = p.play(line["pit"])
            assert p.board == line["board"]
            played.append((mv, line))
    # A Move keeps what its move did, read after the position has moved on.
    for mv, line in played:
        assert (mv.pit, mv.player, mv.laps, mv.endless, mv.sown) == (line["pit"], line["player"], line["laps"], line["endless"], sum(line["laps"]))
        assert [dict(kind=c.kind, by=c.by, pit=c.pit, n=c.n) for c in mv.captures] == line["captures"]
        assert mv.round_end is None
        # The last move of round 1 ends it (R10): the side to move has no legal move.
        assert mv.round_over == (line is moves[-1])
    assert asked.round_over and blind.round_over and asked.legal_moves() == [] == blind.legal_moves()


def position_before_the_endless_move(endless):
    """The position of endless_stop_stays.jsonl before its endless move (R9), the trace's
    moves replayed under `endless = ENDLESS`; and that move's line."""
    lines = golden("endless_stop_stays.jsonl")
    header = lines[0]
    m = rajapasu.Match(rajapasu.Ruleset(**{**header["rules"], "endless": endless}), first=header["first"])
    for line in lines:
        if line["kind"] == "move":
            if line["endless"]:
                return m.position, line
            m.play(line["pit"])
    raise AssertionError("the trace has no endless move")


def test_an_endless_move_played_from_a_position_under_stop():
    p, line = position_before_the_endless_move("stop")
    q = p.clone()
    assert line["pit"] in p.legal_moves()
    for mv in (p.play(line["pit"]), q.play(line["pit"])):
        assert mv.endless and mv.laps == line["laps"] and len(mv.laps) > 32
        assert [dict(kind=c.kind, by=c.by, pit=c.pit, n=c.n) for c in mv.captures] == line["captures"]
    assert p.board == q.board == line["board"]


def test_an_endless_move_is_refused_under_forbid_and_leaves_the_position_unchanged():
    p, line = position_before_the_endless_move("forbid")
    pit = line["pit"]
    assert pit in p.candidates() and pit not in p.legal_moves()
    q = p.clone()
    assert q.legal_moves() != []  # asked: the refusal comes from the known legal moves
    blind = p.clone()  # not asked: the refusal comes from sowing the move
    for r in (q, blind):
        board, reserves, turn = r.board, r.reserves, r.turn
        with pytest.raises(ValueError, match=r"endless and endless=forbid \(R9\)"):
            r.play(pit)
        with pytest.raises(ValueError, match="endless"):
            r.play_fast(pit)
        assert (r.board, r.reserves, r.turn) == (board, reserves, turn)
    # After a refusal the position plays on as before.
    legal = p.legal_moves()
    assert blind.legal_moves() == legal and blind.play(legal[0]).pit == legal[0] and q.play_fast(legal[0]) >= 1
    assert blind.board == q.board


def test_play_fast_and_play_random_agree_with_play():
    rng_a, rng_b = rajapasu.Rng(11), rajapasu.Rng(11)
    a, b = rajapasu.Position.opening(), rajapasu.Position.opening()
    n = 0
    while a.legal_moves():
        legal = a.legal_moves()
        pit = legal[rng_a.below(len(legal))]
        assert a.play(pit).laps.__len__() == b.play_fast(pit)
        n += 1
    assert a.board == b.board and b.round_over
    c = rajapasu.Position.opening()
    assert c.play_random(rng_b) == n and c.board == a.board and c.round_over and c.legal_moves() == []
