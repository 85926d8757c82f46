import os
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

import polars

from ._native import (
    ALLOWED_PLAYERS as ALLOWED_PLAYERS,
    BuiltinPlayer as BuiltinPlayer,
    Capture as Capture,
    Match as Match,
    Move as Move,
    Position as Position,
    RajapasuError as RajapasuError,
    Rng as Rng,
    Ruleset as Ruleset,
    UsageError as UsageError,
)

Player = Union[str, Callable[[Position, Rng], int]]

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
) -> Dict[str, Any]: ...
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
) -> Dict[str, polars.DataFrame]: ...
def read_dataset(path: Union[str, os.PathLike], manifest: bool = False) -> Any: ...
def solve(
    pits_per_row: int = 7,
    seeds_per_pit: int = 7,
    open: Optional[Tuple[int, int]] = None,
    starter: str = "south",
    max_memory: str = "4G",
    max_positions: Optional[int] = None,
    **switches: Any,
) -> Dict[str, Any]: ...
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
) -> Dict[str, Any]: ...
def switches() -> Dict[str, str]: ...
