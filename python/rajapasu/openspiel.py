"""Raja Pasu as an OpenSpiel game: importing this module registers the Python game
``raja_pasu`` with ``pyspiel``, so that every OpenSpiel algorithm (MCTS, AlphaZero, evaluation
tools) can play it. Every move is played by rajapasu's engine.

>>> import pyspiel
>>> import rajapasu.openspiel
>>> game = pyspiel.load_game("raja_pasu(pits_per_row=4,seeds_per_pit=4)")
>>> state = game.new_initial_state()

A sequential, deterministic, perfect-information, zero-sum game with terminal returns: +1 to
the match's winner, -1 to the loser, 0 to both when the match ends unfinished (``max_rounds``
rounds, R14) or a round is still going after ``max_round_moves`` moves (play that never ends,
R17). Player 0 is South, player 1 North (R2). An action is a local pit 0..P-1 (R3).

Parameters: every rule switch (``pits_per_row``, ``seeds_per_pit``, ``final_four``,
``skip_origin``, ``pussa_chain``, ``endless``, ``next_starter``, ``max_rounds``), ``first``
("south" or "north": who starts round 1) and ``max_round_moves`` (default 10,000, the
simulator's cut). The observation tensor (from either player's side) is the vector described
in ``rajapasu._game``; the observation string is the position as text. Serialization is
OpenSpiel's default for deterministic games: the actions played.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from ._game import MAX_ROUND_MOVES, SIDES, SWITCHES, Stepper, observation_size, ruleset

SHORT_NAME = "raja_pasu"

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

_PARAMETERS: Dict[str, Any] = {**SWITCHES, "first": "south", "max_round_moves": MAX_ROUND_MOVES}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Raja Pasu (rajapasu engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


class RajaPasuGame(pyspiel.Game):
    """The game for one ruleset (``pyspiel.load_game("raja_pasu(...)")``)."""

    def __init__(self, params: Optional[Dict[str, Any]] = None):
        params = {**_PARAMETERS, **(params or {})}
        self.rules = ruleset({k: params[k] for k in SWITCHES})
        self.first = str(params["first"])
        self.max_round_moves = int(params["max_round_moves"])
        Stepper(self.rules, self.first, self.max_round_moves)  # checks first and max_round_moves
        p = self.rules.pits_per_row
        info = pyspiel.GameInfo(
            num_distinct_actions=p,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=int(self.rules.as_dict()["max_rounds"]) * self.max_round_moves,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> "RajaPasuState":
        return RajaPasuState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return RajaPasuObserver(self.rules.pits_per_row, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class RajaPasuState(pyspiel.State):
    """A match in progress, stepped through rajapasu's engine."""

    def __init__(self, game: RajaPasuGame):
        super().__init__(game)
        self.stepper = Stepper(game.rules, game.first, game.max_round_moves)

    def current_player(self) -> int:
        player = self.stepper.player
        return _TERMINAL if player is None else player

    def legal_actions(self, player: Optional[int] = None) -> List[int]:
        # Answered here for Python callers (OpenSpiel's C++ asks _legal_actions): the same
        # moves, without the round trip through C++.
        stepper = self.stepper
        if player is None or player == stepper.player:
            return stepper.legal_moves()
        return []

    def _legal_actions(self, player: int) -> List[int]:
        return self.stepper.legal_moves()

    def _apply_action(self, action: int) -> None:
        self.stepper.play(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return f"{SIDES[player]} pit {action}"

    def is_terminal(self) -> bool:
        return self.stepper.is_over

    def returns(self) -> List[float]:
        winner = self.stepper.winner
        if winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if winner == "south" else [-1.0, 1.0]

    def __str__(self) -> str:
        m = self.stepper.match
        return f"round {m.round}, ply {m.ply}, holdings {m.holdings}\n{m.position}"


class RajaPasuObserver:
    """The observation of a position from one player's side (``rajapasu._game``)."""

    def __init__(self, pits_per_row: int, params):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        # The engine writes the observation straight into the tensor's memory.
        self._buffer = bytearray(4 * observation_size(pits_per_row))
        self.tensor = np.frombuffer(self._buffer, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: RajaPasuState, player: int) -> None:
        state.stepper.write_observation(SIDES[player], self._buffer)

    def string_from(self, state: RajaPasuState, player: int) -> str:
        return f"{SIDES[player]}: {' '.join(map(str, state.stepper.observe(SIDES[player])))}"


pyspiel.register_game(GAME_TYPE, RajaPasuGame)
