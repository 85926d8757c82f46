"""solve against golden/solve.json and `rajapasu solve --json`."""

import json
import os
import re

import pytest

import rajapasu
from conftest import GOLDEN, cli

CASES = json.loads((GOLDEN / "solve.json").read_text())
TIMINGS = {"seconds", "enumerate_seconds", "solve_seconds", "positions_per_second", "peak_rss_bytes", "peak_bytes"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['pits_per_row']}x{c['seeds_per_pit']}-{c['starter']}-{c['rules']}")
def test_solve_gives_the_golden_values(case):
    got = rajapasu.solve(
        pits_per_row=case["pits_per_row"], seeds_per_pit=case["seeds_per_pit"], open=tuple(case["open"]),
        starter=case["starter"], **case["rules"],
    )  # fmt: skip
    assert got["value"] == case["value"]
    assert got["best_moves"] == case["best_moves"]
    assert got["positions"] == case["positions"]
    assert got["outcome"] == ("starter_win" if case["value"] > 0 else "draw" if case["value"] == 0 else "starter_loss")


def test_solve_equals_the_cli_json_but_for_timings():
    args = ["solve", "--json", "--rule", "pits_per_row=4", "--rule", "seeds_per_pit=2", "--open", "3,4", "--starter", "north"]
    expected = json.loads(cli(*args).stdout)
    got = rajapasu.solve(pits_per_row=4, seeds_per_pit=2, open=(3, 4), starter="north")
    assert set(got) == set(expected)
    assert {k: v for k, v in got.items() if k not in TIMINGS} == {k: v for k, v in expected.items() if k not in TIMINGS}
    assert got["open"] == [3, 4] and got["starter"] == "north"


def test_solve_errors_are_the_cli_ones():
    with pytest.raises(rajapasu.UsageError, match="open"):
        rajapasu.solve(pits_per_row=3, seeds_per_pit=2, open=(4, 1))
    with pytest.raises(rajapasu.UsageError, match="open"):
        rajapasu.solve(pits_per_row=3, seeds_per_pit=2, open=(1,))
    with pytest.raises(rajapasu.UsageError, match="starter"):
        rajapasu.solve(pits_per_row=3, seeds_per_pit=2, starter="east")
    with pytest.raises(rajapasu.UsageError, match="memory size"):
        rajapasu.solve(pits_per_row=3, seeds_per_pit=2, max_memory="lots")
    done = cli("solve", "--rule", "pits_per_row=7", "--rule", "seeds_per_pit=7", "--max-positions", "1000", check=False)
    assert done.returncode == 2
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.solve(max_positions=1000)
    # The command line's message, the keyword argument in place of the flag.
    assert str(raised.value).replace("max_positions", "--max-positions") in done.stderr


MATCH_CASES = json.loads((GOLDEN / "solve_match.json").read_text())
# What differs between two runs of the same solve: the clock, memory and (between two tables
# directories) the table's path and whether it was read from disk.
MATCH_TIMINGS = {"seconds", "peak_rss_bytes"}
STATS_TIMINGS = {"enumerate_seconds", "solve_seconds"}


def without_timings(answer, also=()):
    out = {k: v for k, v in answer.items() if k not in MATCH_TIMINGS and k not in also}
    out["stats"] = {k: v for k, v in answer["stats"].items() if k not in STATS_TIMINGS}
    return out


def match_cli(tables, *args):
    return json.loads(cli("solve", "--match", "--json", "--tables", tables, *args).stdout)


@pytest.mark.parametrize(
    "case", MATCH_CASES, ids=lambda c: f"{c['pits_per_row']}x{c['seeds_per_pit']}-{c['holdings']}-{c['starter']}-{c['rules']}"
)
def test_solve_match_gives_the_golden_values(case, tmp_path):
    got = rajapasu.solve_match(
        pits_per_row=case["pits_per_row"], seeds_per_pit=case["seeds_per_pit"], holdings=tuple(case["holdings"]),
        starter=case["starter"], tables=tmp_path, **case["rules"],
    )  # fmt: skip
    assert (got["value"], got["rounds"]) == (case["value"], case["rounds"])
    assert got["best_moves"] == case["best_moves"]
    assert got["holdings"] == case["holdings"] and got["starter"] == case["starter"]
    assert got["cached"] is False and got["table"].startswith(str(tmp_path))
    # The table was kept: asking again reads it and answers the same.
    again = rajapasu.solve_match(
        pits_per_row=case["pits_per_row"], seeds_per_pit=case["seeds_per_pit"], holdings=case["holdings"],
        starter=case["starter"], tables=tmp_path, **case["rules"],
    )  # fmt: skip
    assert again["cached"] is True and without_timings(again, {"cached"}) == without_timings(got, {"cached"})


@pytest.mark.parametrize(
    "kwargs, args",
    [
        (dict(pits_per_row=3, seeds_per_pit=3, holdings=(7, 11)), ["--rule", "pits_per_row=3", "--rule", "seeds_per_pit=3", "--holdings", "7,11"]),
        (
            dict(pits_per_row=4, seeds_per_pit=2, holdings=(10, 6), starter="north", final_four="sower"),
            ["--rule", "pits_per_row=4", "--rule", "seeds_per_pit=2", "--holdings", "10,6", "--starter", "north", "--rule", "final_four=sower"],
        ),
        (dict(pits_per_row=3, seeds_per_pit=2, next_starter="round_winner"), ["--rule", "pits_per_row=3", "--rule", "seeds_per_pit=2", "--rule", "next_starter=round_winner"]),
    ],
    ids=["3x3-holdings", "4x2-north-sower", "3x2-round-winner-start"],
)  # fmt: skip
def test_solve_match_equals_the_cli_json_but_for_timings(kwargs, args, tmp_path):
    cli_tables, py_tables = tmp_path / "cli", tmp_path / "py"
    expected = match_cli(cli_tables, *args)
    got = rajapasu.solve_match(tables=py_tables, **kwargs)
    assert set(got) == set(expected) and set(got["stats"]) == set(expected["stats"])
    assert without_timings(got, {"table"}) == without_timings(expected, {"table"})
    assert os.path.basename(got["table"]) == os.path.basename(expected["table"])
    # With the same tables directory the answers are equal to the table's path and `cached`.
    assert without_timings(rajapasu.solve_match(tables=cli_tables, **kwargs)) == without_timings(match_cli(cli_tables, *args))
    assert expected["holdings"] == list(kwargs.get("holdings", (expected["holdings"][0],) * 2))


def test_solve_match_defaults_to_the_match_start_and_the_tables_of_the_environment(tmp_path, monkeypatch):
    # No tables directory given: $RAJAPASU_TABLES, as for the command line.
    monkeypatch.setenv("RAJAPASU_TABLES", str(tmp_path))
    got = rajapasu.solve_match(pits_per_row=2, seeds_per_pit=3)
    assert got["table"].startswith(str(tmp_path)) and len(list(tmp_path.iterdir())) == 1
    assert got["holdings"] == [6, 6] and got["starter"] == "south" and got["open"] == [2, 2]
    assert (got["value"], got["rounds"], got["best_moves"]) == ("loss", 2, [0, 1])
    assert got["rules"]["pits_per_row"] == 2 and got["rules_hash"] == rajapasu.Ruleset(pits_per_row=2, seeds_per_pit=3).hash


@pytest.mark.parametrize(
    "holdings, cli_holdings, needles",
    [
        ((9, 10), "9,10", ["sum to 19", "18 counters"]),
        ((2, 16), "2,16", ["south holds 2", "fewer than seeds_per_pit = 3", "R14"]),
        ((16, 2), "16,2", ["north holds 2", "fewer than seeds_per_pit = 3"]),
    ],
)
def test_solve_match_rejects_holdings_with_the_cli_message(holdings, cli_holdings, needles, tmp_path):
    r3 = ["--rule", "pits_per_row=3", "--rule", "seeds_per_pit=3"]
    done = cli("solve", "--match", "--tables", tmp_path, *r3, "--holdings", cli_holdings, check=False)
    assert done.returncode == 2
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, holdings=holdings, tables=tmp_path)
    message = str(raised.value)
    assert message.startswith("holdings: ") and "--" not in message
    assert message.split(": ", 1)[1] in done.stderr
    assert all(n in message for n in needles), message
    assert list(tmp_path.iterdir()) == [], "nothing is solved for bad holdings"


def test_solve_match_rejects_other_bad_input(tmp_path):
    with pytest.raises(rajapasu.UsageError, match=r"holdings \(9,\): expected \(S, N\)"):
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, holdings=(9,), tables=tmp_path)
    with pytest.raises(rajapasu.UsageError, match="holdings 'nine': expected"):
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, holdings="nine", tables=tmp_path)
    with pytest.raises(rajapasu.UsageError, match="starter"):
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, starter="east", tables=tmp_path)
    with pytest.raises(rajapasu.UsageError, match="rules: "):
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, final_four="sideways", tables=tmp_path)
    with pytest.raises(rajapasu.UsageError, match="max_iterations: 0: "):
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, max_iterations=0, tables=tmp_path)
    args = ["--rule", "pits_per_row=5", "--rule", "seeds_per_pit=4", "--max-memory", "200K"]
    done = cli("solve", "--match", "--tables", tmp_path, *args, check=False)
    assert done.returncode == 2
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.solve_match(pits_per_row=5, seeds_per_pit=4, max_memory="200K", tables=tmp_path)
    message = str(raised.value)
    # Each names its way out: the spilled solve, as a keyword and as a flag.
    assert "(spill=True)" in message and "(--spill)" in done.stderr
    assert message.replace("max_memory", "--max-memory").replace("spill=True", "--spill") in done.stderr
    assert "more than the allowed memory" in message


def test_limit_and_tables_errors_name_the_keyword_not_a_flag(tmp_path, monkeypatch):
    """The solver's limits and a missing tables directory, met through the module, are worded
    with its keyword arguments: no command-line flag in the message."""
    raised = []
    for call in [
        lambda: rajapasu.solve(pits_per_row=5, seeds_per_pit=4, max_memory="200K"),
        lambda: rajapasu.solve(pits_per_row=7, seeds_per_pit=7, max_positions=1000),
        lambda: rajapasu.solve_match(pits_per_row=5, seeds_per_pit=4, max_memory="200K", tables=tmp_path),
    ]:
        with pytest.raises(rajapasu.UsageError) as error:
            call()
        raised.append(str(error.value))
    for name in ["RAJAPASU_TABLES", "XDG_CACHE_HOME", "HOME"]:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(rajapasu.UsageError) as error:
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=2)
    raised.append(str(error.value))
    memory, positions, match_memory, tables = raised
    assert "allowed memory (204800 bytes, max_memory)" in memory
    assert "more than 1000 reachable positions (max_positions)" in positions
    # The match solver names what is left of the allowance for the round graph it was building.
    assert re.search(r"allowed memory \(\d+ bytes, max_memory\)", match_memory) and "(spill=True)" in match_memory
    assert "HOME are all unset" in tables and "pass tables=DIR" in tables
    for message in raised:
        assert "--" not in message, message


def test_an_interrupted_match_solve_continues_from_its_checkpoint(tmp_path):
    whole = rajapasu.solve_match(pits_per_row=4, seeds_per_pit=4, tables=tmp_path / "whole")
    with pytest.raises(rajapasu.RajapasuError) as raised:
        rajapasu.solve_match(pits_per_row=4, seeds_per_pit=4, tables=tmp_path / "parts", max_iterations=1)
    assert not isinstance(raised.value, rajapasu.UsageError)
    resumed = rajapasu.solve_match(pits_per_row=4, seeds_per_pit=4, tables=tmp_path / "parts")
    assert (resumed["value"], resumed["rounds"], resumed["best_moves"]) == (whole["value"], whole["rounds"], whole["best_moves"]) == ("win", 3, [2, 3])


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: rajapasu.solve(pits_per_row=3, seeds_per_pit=2, open=(4, 1)), "open"),
        (lambda: rajapasu.solve(pits_per_row=3, seeds_per_pit=2, open=(1,)), "open"),
        (lambda: rajapasu.solve(pits_per_row=3, seeds_per_pit=2, starter="east"), "starter"),
        (lambda: rajapasu.solve(pits_per_row=3, seeds_per_pit=2, max_memory="lots"), "max_memory"),
        (lambda: rajapasu.solve(pits_per_row=3, seeds_per_pit=2, final_four="sideways"), "final_four"),
        (lambda: rajapasu.solve_match(pits_per_row=3, seeds_per_pit=2, holdings=(5, 6)), "holdings"),
        (lambda: rajapasu.solve_match(pits_per_row=3, seeds_per_pit=2, holdings=(1, 11)), "holdings"),
        (lambda: rajapasu.solve_match(pits_per_row=3, seeds_per_pit=2, holdings=(6,)), "holdings"),
        (lambda: rajapasu.solve_match(pits_per_row=3, seeds_per_pit=2, starter="up"), "starter"),
        (lambda: rajapasu.solve_match(pits_per_row=3, seeds_per_pit=2, max_memory="0"), "max_memory"),
        (lambda: rajapasu.solve_match(pits_per_row=3, seeds_per_pit=2, max_iterations=0), "max_iterations"),
        (lambda: rajapasu.Ruleset(pits_per_rows=3), "pits_per_rows"),
        (lambda: rajapasu.Position.opening(starter="east"), "starter"),
    ],
    ids=[
        "solve-open", "solve-open-shape", "solve-starter", "solve-max_memory", "solve-switch", "match-holdings-sum",
        "match-holdings-low", "match-holdings-shape", "match-starter", "match-max_memory", "match-max_iterations",
        "ruleset-switch", "position-starter",
    ],
)  # fmt: skip
def test_a_bad_keyword_argument_of_solve_is_named_not_a_flag(call, name, tmp_path, monkeypatch):
    monkeypatch.setenv("RAJAPASU_TABLES", str(tmp_path))
    with pytest.raises(rajapasu.UsageError) as raised:
        call()
    message = str(raised.value)
    # The argument first; a rule switch (a keyword argument too) inside the rules' message.
    assert message.startswith(name) or (message.startswith("rules: ") and name in message), message
    assert "--" not in message, message
    # Nothing was solved into the tables directory for a request refused before solving.
    assert not any(tmp_path.iterdir())


def test_solve_match_spilled_equals_the_cli_and_the_in_memory_table(tmp_path):
    """spill=True solves the table with its round graphs on disk, as `solve --match --spill`
    does, within a memory bound the in-memory solver refuses: the same answers."""
    board = dict(pits_per_row=4, seeds_per_pit=3, final_four="stays")
    memory = rajapasu.solve_match(tables=tmp_path / "memory", **board)
    bound = str(memory["stats"]["peak_bytes"] // 3)
    with pytest.raises(rajapasu.UsageError, match="max_memory"):
        rajapasu.solve_match(tables=tmp_path / "refused", max_memory=bound, **board)
    spilled = rajapasu.solve_match(tables=tmp_path / "py", max_memory=bound, spill=True, max_disk="64M", **board)
    args = ["--rule", "pits_per_row=4", "--rule", "seeds_per_pit=3", "--rule", "final_four=stays"]
    cli_answer = match_cli(tmp_path / "cli", *args, "--spill", "--max-memory", bound, "--max-disk", "64M")
    for key in ["value", "rounds", "best_moves", "holdings", "open"]:
        assert spilled[key] == memory[key] == cli_answer[key], key
    assert spilled["stats"]["positions"] == cli_answer["stats"]["positions"] == memory["stats"]["positions"]
    assert sorted(p.name for p in (tmp_path / "py").iterdir()) == [os.path.basename(spilled["table"]), "matches"]
    assert list((tmp_path / "py" / "matches").iterdir()) == [], "the round graphs are removed once the table is saved"


def test_solve_match_spill_bounds_are_checked_by_keyword(tmp_path):
    with pytest.raises(rajapasu.UsageError, match="max_disk bounds the round graphs on disk: pass spill=True"):
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, max_disk="1G", tables=tmp_path)
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.solve_match(pits_per_row=3, seeds_per_pit=3, spill=True, max_disk="4K", tables=tmp_path)
    message = str(raised.value)
    assert "more disk than allowed (max_disk 4096 bytes)" in message and "--" not in message, message
