"""solve against golden/solve.json and `rajapasu solve --json`."""

import json

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
    assert str(raised.value) in done.stderr
