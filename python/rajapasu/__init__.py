"""rajapasu from Python: the Raja Pasu rules engine, seeded batch simulation into polars
frames, dataset checks and the exact perfect-play solver.

>>> import rajapasu
>>> tables = rajapasu.simulate(matches=1000, seed=7)
>>> tables["matches"]["winner"].value_counts()

Everything runs in the native module built from the same Rust crate as the ``rajapasu``
command line: ``simulate`` runs the very job ``rajapasu simulate`` runs, so its rows equal
the command's for the same arguments, and errors carry the command line's messages
(``UsageError`` for bad input).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from . import _native
from ._native import (  # noqa: F401  (the public classes)
    ALLOWED_PLAYERS,
    BuiltinPlayer,
    Capture,
    Match,
    Move,
    Position,
    RajapasuError,
    Rng,
    Ruleset,
    UsageError,
)

__all__ = [
    "BuiltinPlayer",
    "Capture",
    "Match",
    "Move",
    "Position",
    "RajapasuError",
    "Rng",
    "Ruleset",
    "UsageError",
    "read_dataset",
    "simulate",
    "simulate_to",
    "solve",
    "solve_match",
    "switches",
]

Player = Union[str, Callable[[Position, Rng], int]]

_NAME = re.compile(r"[^A-Za-z0-9_.<>-]")


def _player_name(fn: Callable[..., Any]) -> str:
    """The name a callable plays under, ``python:NAME`` in the manifest: its ``rajapasu_name``
    attribute if set, else its ``__name__`` (a lambda is ``<lambda>``)."""
    name = getattr(fn, "rajapasu_name", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return _NAME.sub("_", str(name))[:64] or "player"


def _seat(player: Player, seat: str, players: Dict[str, Callable[..., Any]]) -> str:
    if isinstance(player, str):
        return player
    if not callable(player):
        raise UsageError(f"--{seat}: a player is a spec string ({ALLOWED_PLAYERS}) or a callable (position, rng) -> pit")
    name = _player_name(player)
    if name in players and players[name] is not player:
        name = f"{name}.{seat}"
    players[name] = player
    return f"python:{name}"


def simulate_to(
    out: Union[str, os.PathLike],
    matches: int,
    seed: int = 1,
    south: Player = "random",
    north: Player = "random",
    first: str = "alternate",
    detail: str = "round",
    rules: Optional[Mapping[str, Any]] = None,
    threads: Optional[int] = None,
    batch_size: Optional[int] = None,
    format: str = "parquet",
    shard: str = "1/1",
    resume: bool = False,
) -> dict:
    """Runs ``rajapasu simulate --out OUT ...`` (the same job) and returns its manifest as a
    dict. Arguments left out take the command line's defaults; ``threads=None`` is one per
    core (``--threads 0``). A callable player plays as ``python:NAME``."""
    players: Dict[str, Callable[..., Any]] = {}
    south_spec = _seat(south, "south", players)
    north_spec = _seat(north, "north", players)
    manifest = _native.simulate_to(
        os.fspath(out),
        matches,
        seed=seed,
        south=south_spec,
        north=north_spec,
        first=first,
        detail=detail,
        rules=dict(rules) if rules else None,
        threads=0 if threads is None else threads,
        batch_size=batch_size,
        format=format,
        shard=shard,
        resume=resume,
        players=players or None,
    )
    return json.loads(manifest)


def simulate(
    matches: int,
    seed: int = 1,
    south: Player = "random",
    north: Player = "random",
    first: str = "alternate",
    detail: str = "round",
    rules: Optional[Mapping[str, Any]] = None,
    threads: Optional[int] = None,
    batch_size: Optional[int] = None,
) -> Dict[str, "polars.DataFrame"]:  # noqa: F821
    """Plays ``matches`` seeded matches and returns every table ``rajapasu simulate`` writes
    for these arguments, ``{"matches": DataFrame, "rounds": ..., ...}`` (the tables of
    ``detail``: match, round, move or lap), with exactly its rows and columns.

    ``south``/``north`` are player specs (``"random"``, ``"greedy"``, ``"minimax:3"``,
    ``"mcts:256"``, ``"external:PROGRAM"``) or a Python callable ``f(position, rng) -> pit``
    given each decision's Position and the seat's own Rng stream (so rows stay reproducible);
    ``rules`` maps switch names to values (``{"pits_per_row": 5}``).
    """
    with tempfile.TemporaryDirectory(prefix="rajapasu-") as tmp:
        out = os.path.join(tmp, "dataset")
        simulate_to(out, matches, seed, south, north, first, detail, rules, threads, batch_size)
        return read_dataset(out)


def _read_part(path: str, fmt: str):
    import polars as pl

    if fmt == "parquet":
        return pl.read_parquet(path)
    return pl.read_csv(path)


def read_dataset(path: Union[str, os.PathLike], manifest: bool = False):
    """Reads a dataset directory written by ``rajapasu simulate`` (or ``simulate_to``) into
    ``{table: polars.DataFrame}``, after checking it as ``rajapasu verify`` does (every part
    file against its progress marker's size and SHA-256, manifests complete and of one run):
    a dataset that does not hold raises ``UsageError`` naming what is wrong. CSV-only datasets
    are read with polars' type inference. With ``manifest=True`` returns (tables, manifest).
    """
    import polars as pl

    manifest_json, fmt, parts = _native.dataset_parts(os.fspath(path))
    tables = {}
    for table, files in parts.items():
        frames = [_read_part(f, fmt) for f in files]
        tables[table] = pl.concat(frames, how="vertical") if frames else pl.DataFrame()
    if manifest:
        return tables, json.loads(manifest_json)
    return tables


def solve(
    pits_per_row: int = 7,
    seeds_per_pit: int = 7,
    open: Optional[tuple] = None,
    starter: str = "south",
    max_memory: str = "4G",
    max_positions: Optional[int] = None,
    **switches: Any,
) -> dict:
    """The exact perfect-play value of a round's start (docs/rules.md R15), as
    ``rajapasu solve --json`` prints it: a dict with ``value`` (the starter's captures minus
    the opponent's to the round's end), ``outcome``, ``best_moves`` (local pits),
    ``positions`` (reachable), timings and memory. ``open=(S, N)`` sets the open pits of
    South and North (default: all); other rule switches are keyword arguments. A board too
    large for ``max_memory`` / ``max_positions`` raises ``UsageError``."""
    rules = dict(switches)
    rules["pits_per_row"] = pits_per_row
    rules["seeds_per_pit"] = seeds_per_pit
    if open is not None:
        try:
            open = (int(open[0]), int(open[1]))
            if len(open) != 2:
                raise ValueError
        except (TypeError, ValueError, IndexError):
            raise UsageError(f"open {open!r}: expected (S, N), the open pits of South and North") from None
    return json.loads(_native.solve_json(open, starter, max_memory, max_positions, rules))


def _pair(value: Any, what: str, expected: str) -> Optional[Tuple[int, int]]:
    if value is None:
        return None
    try:
        if len(value) != 2:
            raise ValueError
        return (int(value[0]), int(value[1]))
    except (TypeError, ValueError, IndexError, OverflowError):
        raise UsageError(f"{what} {value!r}: expected {expected}") from None


def solve_match(
    pits_per_row: int = 7,
    seeds_per_pit: int = 7,
    holdings: Optional[Tuple[int, int]] = None,
    starter: str = "south",
    tables: Optional[Union[str, os.PathLike]] = None,
    max_memory: str = "4G",
    max_positions: Optional[int] = None,
    max_iterations: Optional[int] = None,
    spill: bool = False,
    max_disk: Optional[str] = None,
    **switches: Any,
) -> dict:
    """The perfect-match value of a match state (docs/rules.md R17), as
    ``rajapasu solve --match --json`` prints it: a dict with ``value`` (``"win"``, ``"draw"``
    or ``"loss"`` for the starter), ``rounds`` (for a win the least k within which the
    starter forces it, the round starting counted as 1; for a loss the same for the
    opponent; None for a draw), ``best_moves`` (the starter's opening moves keeping value and
    rounds, local pits), ``holdings``, ``starter``, ``open`` (each side's open pits, R12),
    ``rules``, ``rules_hash``, ``table`` and ``cached``, ``stats``, ``seconds`` and memory.

    ``holdings=(S, N)`` are South's and North's counters at the round's start (summing to
    2 x pits_per_row x seeds_per_pit, each at least seeds_per_pit; default: the match's
    start). The table of every match state of the board is solved once and kept in
    ``tables`` (default: ``$RAJAPASU_TABLES``, else ``$XDG_CACHE_HOME/rajapasu/tables``, else
    ``~/.cache/rajapasu/tables``), shared with the command line's ``--tables``; an interrupted
    solve continues from its checkpoint there. ``max_iterations`` stops the rounds loop after
    that many iterations (raises ``RajapasuError``; call again to continue). Other rule
    switches are keyword arguments. Bad holdings, rules or a board too large for
    ``max_memory`` raise ``UsageError`` with the command line's message.

    ``spill=True`` solves the table with its round graphs on disk under ``tables``, as
    ``solve --match --spill`` does: memory bounded by ``max_memory`` and the largest level of a
    round, disk by ``max_disk`` (e.g. ``"60G"``; default: no bound); an interrupted solve
    continues from its finished levels and iterations. The table is the in-memory solver's."""
    rules = dict(switches)
    rules["pits_per_row"] = pits_per_row
    rules["seeds_per_pit"] = seeds_per_pit
    pair = _pair(holdings, "holdings", "(S, N), the holdings of South and North")
    answer = _native.solve_match_json(
        pair,
        starter,
        os.fspath(tables) if tables is not None else None,
        max_memory,
        max_positions,
        max_iterations,
        rules,
        spill,
        max_disk,
    )
    return json.loads(answer)


def switches() -> Dict[str, str]:
    """The rule switches and their default values (``Ruleset(**{name: value})``)."""
    return dict(_native.switches())
