"""simulate / simulate_to / read_dataset against the command line's datasets, and Python players."""

import glob
import json
import os
import shutil
import sys

import polars as pl
import pytest

import rajapasu
from conftest import ROOT, cli

DETAIL_TABLES = {
    "match": {"matches", "histograms", "quality", "by_round"},
    "round": {"matches", "rounds", "histograms", "quality", "by_round"},
    "move": {"matches", "rounds", "moves", "histograms", "quality", "by_round"},
    "lap": {"matches", "rounds", "moves", "laps", "histograms", "quality", "by_round"},
}
PLAYER_COLUMNS = ["south_player", "north_player"]


def cli_dataset(tmp_path, name, *args):
    """The tables of `rajapasu simulate ARGS`, read with polars straight from its part files."""
    out = tmp_path / name
    cli("simulate", "--quiet", "--out", out, *args)
    tables = {}
    for table_dir in sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")):
        parts = sorted(glob.glob(str(table_dir / "*.parquet")))
        tables[table_dir.name] = pl.concat([pl.read_parquet(p) for p in parts])
    return tables


def assert_same_tables(got, expected, drop=()):
    assert set(got) == set(expected)
    for name in expected:
        g, e = got[name], expected[name]
        g = g.drop([c for c in drop if c in g.columns])
        e = e.drop([c for c in drop if c in e.columns])
        assert g.columns == e.columns, name
        assert g.schema == e.schema, name
        assert g.height == e.height and g.height > 0, name
        assert g.equals(e), f"table {name} differs"


def table_names(tmp_path):
    return {p.name for p in tmp_path.iterdir()}


@pytest.mark.parametrize("detail", ["match", "round", "move", "lap"])
def test_rows_equal_the_cli_dataset_at_every_detail(tmp_path, detail):
    expected = cli_dataset(tmp_path, "cli", "--matches", 40, "--seed", 11, "--detail", detail, "--batch-size", 16)
    got = rajapasu.simulate(matches=40, seed=11, detail=detail, batch_size=16)
    assert set(got) == DETAIL_TABLES[detail]
    assert_same_tables(got, expected)


def test_defaults_are_the_cli_defaults(tmp_path):
    expected = cli_dataset(tmp_path, "cli", "--matches", 25)
    got = rajapasu.simulate(matches=25)
    assert_same_tables(got, expected)
    # A different seed gives other rows: the comparison above could fail.
    other = rajapasu.simulate(matches=25, seed=2)
    assert not other["rounds"].equals(got["rounds"])


def test_rules_players_first_and_threads_as_on_the_command_line(tmp_path):
    expected = cli_dataset(
        tmp_path,
        "cli",
        "--matches", 12, "--seed", 5, "--south", "greedy", "--north", "minimax:2", "--first", "north",
        "--rule", "pits_per_row=5", "--rule", "final_four=sower", "--detail", "move",
    )  # fmt: skip
    for threads in (1, None):
        got = rajapasu.simulate(
            matches=12, seed=5, south="greedy", north="minimax:2", first="north",
            rules={"pits_per_row": 5, "final_four": "sower"}, detail="move", threads=threads,
        )  # fmt: skip
        assert_same_tables(got, expected)
    assert got["matches"]["south_player"][0] == "greedy"
    assert got["matches"]["north_player"][0] == "minimax:depth=2,nodes=unlimited,eval=match"


def lowest(position, rng):
    return min(position.legal_moves())


def test_a_python_player_playing_the_lowest_pit_gives_the_external_players_rows(tmp_path):
    player = f"external:{sys.executable} {ROOT / 'scripts' / 'example_player.py'} --strategy first"
    expected = cli_dataset(tmp_path, "cli", "--matches", 10, "--seed", 3, "--south", player, "--detail", "move")
    got = rajapasu.simulate(matches=10, seed=3, south=lowest, detail="move")
    assert_same_tables(got, expected, drop=PLAYER_COLUMNS)
    assert got["matches"]["south_player"].unique().to_list() == ["python:lowest"]
    # And not the random player's rows.
    rand = rajapasu.simulate(matches=10, seed=3, detail="move")
    assert not rand["moves"].equals(got["moves"])


def python_random(position, rng):
    """The built-in random player, written in Python with the seat's stream."""
    candidates = position.candidates()
    legal = set(position.legal_moves())
    while candidates:
        pit = candidates[rng.below(len(candidates))]
        if pit in legal:
            return pit
        candidates.remove(pit)
    raise AssertionError("asked without a legal move")


def test_a_python_player_gets_its_seats_stream(tmp_path):
    # Drawing as the built-in random player does from the rng it is handed reproduces that
    # player's rows exactly: the rng is the seat's stream of (seed, match index, seat).
    builtin = rajapasu.simulate(matches=30, seed=9, detail="move", threads=2)
    python = rajapasu.simulate(matches=30, seed=9, south=python_random, north=python_random, detail="move", threads=2)
    assert_same_tables(python, builtin, drop=PLAYER_COLUMNS)
    assert python["matches"]["north_player"][0] == "python:python_random"


def test_simulate_to_writes_a_dataset_the_cli_verifies(tmp_path):
    out = tmp_path / "py"
    manifest = rajapasu.simulate_to(out, matches=8, seed=4, south=lowest)
    assert manifest["south"] == "python:lowest"
    assert manifest["matches"] == 8 and manifest["status"] == "complete"
    done = cli("verify", out)
    assert "ok:" in done.stdout
    tables, m = rajapasu.read_dataset(out, manifest=True)
    assert m["run_id"] == manifest["run_id"]
    assert tables["matches"].height == 8


def test_read_dataset_verifies_as_verify_does(tmp_path):
    out = tmp_path / "d"
    cli("simulate", "--quiet", "--matches", 10, "--out", out)
    assert rajapasu.read_dataset(out)["matches"].height == 10
    part = sorted(glob.glob(str(out / "rounds" / "*.parquet")))[0]
    with open(part, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(rajapasu.UsageError, match="SHA-256|progress marker"):
        rajapasu.read_dataset(out)
    with pytest.raises(rajapasu.UsageError, match="no manifest.json"):
        rajapasu.read_dataset(tmp_path)
    with pytest.raises(rajapasu.UsageError, match="no such directory"):
        rajapasu.read_dataset(tmp_path / "missing")


def test_read_dataset_reads_csv_datasets(tmp_path):
    out = tmp_path / "csv"
    cli("simulate", "--quiet", "--matches", 6, "--format", "csv", "--out", out)
    tables = rajapasu.read_dataset(out)
    parquet = rajapasu.simulate(matches=6)
    assert tables["matches"].height == 6
    assert tables["matches"]["winner"].to_list() == parquet["matches"]["winner"].cast(pl.String).to_list()


def test_bad_arguments_raise_the_cli_messages(tmp_path):
    cases = [
        (dict(matches=0), ["--matches", "0"]),
        (dict(matches=5, detail="everything"), ["--matches", "5", "--detail", "everything"]),
        (dict(matches=5, south="minimax:99"), ["--matches", "5", "--south", "minimax:99"]),
        (dict(matches=5, rules={"pits_per_row": 12}), ["--matches", "5", "--rule", "pits_per_row=12"]),
        (dict(matches=5, rules={"no_such_switch": 1}), ["--matches", "5", "--rule", "no_such_switch=1"]),
    ]
    for kwargs, args in cases:
        done = cli("simulate", "--quiet", "--out", tmp_path / "x", *args, check=False)
        assert done.returncode == 2, args
        with pytest.raises(rajapasu.UsageError) as raised:
            rajapasu.simulate(**kwargs)
        message = str(raised.value)
        # The command line's message, less clap's framing, is in the Python one.
        core = message.split(": ", 1)[-1]
        assert core[:30] in done.stderr, (message, done.stderr)


def test_a_failing_python_player_raises_with_its_exception_as_cause():
    def broken(position, rng):
        raise KeyError("boom")

    with pytest.raises(rajapasu.RajapasuError, match=r"python:broken.*KeyError") as raised:
        rajapasu.simulate(matches=3, south=broken)
    assert isinstance(raised.value.__cause__, KeyError)

    def illegal(position, rng):
        return 99

    with pytest.raises(rajapasu.RajapasuError, match="played pit 99, which is not legal"):
        rajapasu.simulate(matches=3, north=illegal)
    with pytest.raises(rajapasu.UsageError, match="not a player name|a player is a spec"):
        rajapasu.simulate(matches=3, south=42)


def test_the_cli_refuses_python_players_it_cannot_run(tmp_path):
    done = cli("simulate", "--quiet", "--matches", 2, "--south", "python:lowest", "--out", tmp_path / "x", check=False)
    assert done.returncode == 1
    assert "python:lowest" in done.stderr and "Python package" in done.stderr


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"detail": "everything"}, "detail"),
        ({"first": "west"}, "first"),
        ({"format": "xml"}, "format"),
        ({"shard": "4/3"}, "shard"),
        ({"south": "nobody"}, "south"),
        ({"north": "minimax:depth=x"}, "north"),
        ({"matches": 0}, "matches"),
        ({"batch_size": 0}, "batch_size"),
        ({"threads": 5000}, "threads"),
    ],
)
def test_a_bad_keyword_argument_is_an_error_naming_it_not_a_flag(tmp_path, kwargs, name):
    args = {"matches": 4, **kwargs}
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.simulate_to(tmp_path / "out", **args)
    message = str(raised.value)
    assert message.startswith(f"{name}: "), message
    assert "--" not in message, message


def test_a_refused_destination_names_the_keyword_arguments_not_flags(tmp_path):
    out = tmp_path / "out"
    rajapasu.simulate_to(out, matches=4)
    # A finished run's directory: writing again is refused, in the words of the function.
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.simulate_to(out, matches=4, seed=2)
    message = str(raised.value)
    assert "--" not in message and "out" in message, message
    # A file of someone else's: refused, naming `out`.
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(rajapasu.UsageError) as raised:
        rajapasu.simulate_to(foreign, matches=4)
    message = str(raised.value)
    assert "--" not in message and "out" in message, message
    assert (foreign / "notes.txt").read_text() == "mine"
