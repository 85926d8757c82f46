"""What the PettingZoo environment and the OpenSpiel game share: a match stepped through the
engine (``rajapasu.Match``: no second implementation of the rules), its cut after too many
moves in one round, and the observation of a position from one side.

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

from typing import Any, Dict, Mapping, Optional, Tuple

from ._native import Match, Ruleset, UsageError

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


class Stepper:
    """A match stepped move by move, with the round cut of R17: after ``max_round_moves``
    moves in one round the match is over, neither won nor lost (``cut``)."""

    __slots__ = ("match", "rules", "pits", "round_moves", "max_round_moves", "cut", "starter", "last_round_end")

    def __init__(self, rules: Ruleset, first: str = "south", max_round_moves: int = MAX_ROUND_MOVES):
        if first not in SIDES:
            raise UsageError(f"first {first!r}: allowed values are south, north")
        if not isinstance(max_round_moves, int) or max_round_moves < 1:
            raise UsageError(f"max_round_moves {max_round_moves!r}: expected a positive integer")
        self.rules = rules
        self.pits = rules.pits_per_row
        self.match = Match(rules, first)
        self.round_moves = 0
        self.max_round_moves = max_round_moves
        self.cut = False
        self.starter = self.match.turn
        self.last_round_end: Optional[dict] = None

    def clone(self) -> "Stepper":
        other = Stepper.__new__(Stepper)
        other.match = self.match.clone()
        for name in ("rules", "pits", "round_moves", "max_round_moves", "cut", "starter", "last_round_end"):
            setattr(other, name, getattr(self, name))
        return other

    def __deepcopy__(self, memo: Any) -> "Stepper":
        return self.clone()

    def __reduce__(self):
        # Pickled as its rules, first player, cut and moves; unpickled by playing them again.
        return (_replayed, (self.rules.as_dict(), self.match.first, self.max_round_moves, self.match.moves))

    @property
    def is_over(self) -> bool:
        return self.cut or self.match.is_over

    @property
    def winner(self) -> Optional[str]:
        """"south" or "north" once the match is won; None while it goes on or when it ended
        unfinished (max_rounds, R14) or was cut (R17)."""
        return None if self.cut else self.match.winner

    @property
    def truncated(self) -> bool:
        """The match is over without a winner: max_rounds rounds (R14) or a round cut (R17)."""
        return self.is_over and self.winner is None

    def legal_moves(self):
        return [] if self.is_over else self.match.legal_moves()

    def play(self, pit: int):
        """Plays local pit ``pit`` for the side to move (ValueError if illegal); returns the
        round's end (a dict, see ``Move.round_end``) when the move ended a round, else None."""
        end = self.match.play(pit).round_end
        if end is None:
            self.round_moves += 1
            if self.round_moves >= self.max_round_moves and not self.match.is_over:
                self.cut = True
        else:
            self.round_moves = 0
            self.starter = self.match.turn
        self.last_round_end = end
        return end

    def observe(self, side: str) -> list:
        """The observation of ``side`` (module docstring), a list of ints."""
        m = self.match
        pos = m.position
        p = self.pits
        board = pos.board
        south, north = board[:p], board[p:]
        reserves = pos.reserves
        open_pits = pos.open
        x = 0 if side == "south" else 1
        mine, theirs = (south, north) if x == 0 else (north, south)
        y_side = SIDES[1 - x]
        return (
            list(mine)
            + list(theirs)
            + [reserves[x], reserves[1 - x], p - len(open_pits[side]), p - len(open_pits[y_side]), m.round]
            + [int(not self.is_over and m.turn == side), int(self.starter == side)]
        )


def _replayed(switches: Dict[str, Any], first: str, max_round_moves: int, moves: list) -> Stepper:
    stepper = Stepper(Ruleset(**switches), first, max_round_moves)
    for pit in moves:
        stepper.play(pit)
    return stepper


def split_switches(kwargs: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(rule switches, other keyword arguments) of ``kwargs``."""
    rules = {k: v for k, v in kwargs.items() if k in SWITCHES}
    rest = {k: v for k, v in kwargs.items() if k not in SWITCHES}
    return rules, rest
