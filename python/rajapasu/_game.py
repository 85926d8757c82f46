"""What the PettingZoo environment and the OpenSpiel game share: ``Stepper``, a match stepped
through the engine (native, as ``rajapasu.Match``: no second implementation of the rules), with
its cut after too many moves in one round (R17) and the observation of a position from one side
written in one call (``observation_bytes`` for PettingZoo's arrays, ``write_observation`` for
OpenSpiel's tensor).

The observation of side X (its opponent Y) is a vector of ``2 * P + 7`` integers, P the pits
per row::

    [0, P)        X's pits, local 0..P-1 from X's left end (R3); a closed pit (R12) holds 0
    [P, 2P)       Y's pits, local 0..P-1 from Y's left end
    2P, 2P+1      counters X and Y keep off the board this round (kept at the round's start
                  plus captured since)
    2P+2, 2P+3    X's and Y's closed pits this round (R12: the leftmost pits of a row)
    2P+4          the round, from 1
    2P+5          1 if X is to move, else 0
    2P+6          1 if X started the round, else 0
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Tuple

from ._native import Ruleset, Stepper, UsageError

__all__ = ["MAX_ROUND_MOVES", "SIDES", "SWITCHES", "Stepper", "observation_high", "observation_size", "ruleset", "split_switches"]

SIDES = ("south", "north")

#: A round not over after this many moves is play that never ends (R17): the simulator records
#: its match unfinished (``sim::MAX_ROUND_MOVES``); here the match is truncated.
MAX_ROUND_MOVES = 10_000

#: The rule switches, the board's size among them, and their defaults (docs/rules.md).
SWITCHES: Dict[str, Any] = dict(Ruleset().as_dict())


def ruleset(switches: Mapping[str, Any]) -> Ruleset:
    """The rules with ``switches`` (a switch left out takes its default); unknown switches and
    bad values raise ``UsageError`` naming them."""
    unknown = sorted(set(switches) - set(SWITCHES))
    if unknown:
        raise UsageError(f"unknown rule switch {', '.join(unknown)}: the switches are {', '.join(SWITCHES)}")
    return Ruleset(**dict(switches))


def observation_size(pits_per_row: int) -> int:
    return 2 * pits_per_row + 7


def observation_high(rules: Ruleset) -> list:
    """The largest value of each observation element."""
    p = rules.pits_per_row
    total = 2 * p * rules.seeds_per_pit
    return [total] * (2 * p + 2) + [p, p, max(1, int(rules.as_dict()["max_rounds"])), 1, 1]


def split_switches(kwargs: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(rule switches, other keyword arguments) of ``kwargs``."""
    rules = {k: v for k, v in kwargs.items() if k in SWITCHES}
    rest = {k: v for k, v in kwargs.items() if k not in SWITCHES}
    return rules, rest
