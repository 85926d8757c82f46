"""Raja Pasu as a Farama PettingZoo environment (AEC API) and a Gymnasium single-agent
environment against a built-in player. Every move is played by rajapasu's engine.

>>> from rajapasu.env import raja_pasu_v0
>>> env = raja_pasu_v0.env(pits_per_row=4, seeds_per_pit=4)
>>> env.reset(seed=1)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Agents: ``player_0`` plays South, ``player_1`` North (R2). An action is a local pit 0..P-1
(R3, from the mover's left end); ``action_mask`` marks the legal ones (R4, R9). The
observation is ``{"observation": ..., "action_mask": ...}``, the observation a vector of
``2P + 7`` integers from the observing agent's side (see ``rajapasu._game``: its pits, the
opponent's, the counters each keeps off the board, each one's closed pits, the round, whether
it is to move, whether it started the round).

Rewards: +1 to the match's winner and -1 to the loser when it ends (``reward="match"``), or,
with ``reward="captures"``, at every round's end each agent's captures minus the opponent's in
that round, divided by the counters on the board (2PS). A match that ends unfinished after
``max_rounds`` rounds (R14), or whose round is still going after ``max_round_moves`` moves
(play that never ends, R17), is truncated, rewarding nobody.

Keyword arguments: every rule switch (``pits_per_row``, ``seeds_per_pit``, ``final_four``,
``skip_origin``, ``pussa_chain``, ``endless``, ``next_starter``, ``max_rounds``), ``first``
("south", "north" or "random": who starts round 1, drawn from the reset's seed),
``max_round_moves`` (default 10,000, the simulator's cut), ``reward`` and ``render_mode``
("ansi": the position as text; "human": printed; "svg": the position as the replay page of
``rajapasu show`` draws it, an SVG document; "html": the match so far as that replay page, one
self-contained HTML file opening at the position now).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._game import MAX_ROUND_MOVES, SIDES, Stepper, observation_high, observation_size, ruleset, split_switches
from ._native import BuiltinPlayer, UsageError

AGENTS = ("player_0", "player_1")
REWARDS = ("match", "captures")
RENDER_MODES = ["ansi", "human", "svg", "html"]


def _check_choice(name: str, value: Any, allowed) -> None:
    if value not in allowed:
        raise UsageError(f"{name} {value!r}: allowed values are {', '.join(map(str, allowed))}")


class RajaPasuEnv(AECEnv):
    """The AEC environment; ``raja_pasu_v0.env(**kwargs)`` wraps it in PettingZoo's checks
    (``raja_pasu_v0.raw_env`` is this class)."""

    metadata = {"name": "raja_pasu_v0", "render_modes": RENDER_MODES, "is_parallelizable": False}

    def __init__(
        self,
        first: str = "south",
        reward: str = "match",
        max_round_moves: int = MAX_ROUND_MOVES,
        render_mode: Optional[str] = None,
        **switches: Any,
    ):
        super().__init__()
        _check_choice("first", first, SIDES + ("random",))
        _check_choice("reward", reward, REWARDS)
        _check_choice("render_mode", render_mode, (None,) + tuple(self.metadata["render_modes"]))
        self.rules = ruleset(switches)
        self.first = first
        self.reward_kind = reward
        self.max_round_moves = max_round_moves
        self.render_mode = render_mode
        p = self.rules.pits_per_row
        self.possible_agents = list(AGENTS)
        self.agent_side = dict(zip(AGENTS, SIDES))
        self.side_agent = dict(zip(SIDES, AGENTS))
        high = np.array(observation_high(self.rules), dtype=np.int64)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0, high=high, shape=(observation_size(p),), dtype=np.int64),
                "action_mask": spaces.Box(low=0, high=1, shape=(p,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(p) for a in AGENTS}
        self._total = 2 * p * self.rules.seeds_per_pit
        self._obs_len = observation_size(p)
        # Stepper(...) checks max_round_moves now rather than at the first reset.
        self.game = Stepper(self.rules, "south", max_round_moves)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        first = self.first
        if first == "random":
            first = SIDES[int(self.np_random.integers(2))]
        self.game = Stepper(self.rules, first, self.max_round_moves)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = self.side_agent[self.game.turn]
        # A match whose round 1 has no legal move (a degenerate board) is over at once.
        self._settle()

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        # The engine writes the observation and the mask into one new buffer: two views of it.
        n = self._obs_len
        buffer = self.game.observation_bytes(self.agent_side[agent])
        return {
            "observation": np.frombuffer(buffer, np.int64, n),
            "action_mask": np.frombuffer(buffer, np.int8, self.rules.pits_per_row, 8 * n),
        }

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise UsageError(f"{agent}: step(None) is for an agent whose match is over; pass a pit 0..{self.rules.pits_per_row - 1}")
        pit = int(action)
        try:
            end = self.game.play(pit)
        except ValueError as e:
            raise UsageError(f"{agent}: pit {pit} is not a legal move here (legal: {self.game.legal_moves()}; {e})") from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if end is not None and self.reward_kind == "captures":
            s, n = end["captured"]
            self.rewards["player_0"] = (s - n) / self._total
            self.rewards["player_1"] = (n - s) / self._total
        self._settle()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _settle(self) -> None:
        """Ends the match for both agents when it is over, else selects the side to move."""
        g = self.game
        if not g.is_over:
            self.agent_selection = AGENTS[g.player]
            return
        winner = g.winner
        if winner is not None and self.reward_kind == "match":
            for a in AGENTS:
                self.rewards[a] = 1.0 if self.agent_side[a] == winner else -1.0
        for a in AGENTS:
            self.terminations[a] = winner is not None
            self.truncations[a] = winner is None
            self.infos[a] = {"winner": winner, "rounds": g.round, "holdings": g.holdings, "cut": g.cut}

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            gymnasium.logger.warn(f"render() without a render_mode: pass render_mode= one of {', '.join(RENDER_MODES)}")
            return None
        if self.render_mode == "svg":
            return self.game.svg()
        if self.render_mode == "html":
            return self.game.replay_page()
        m = self.game.match
        text = f"round {m.round}, ply {m.ply}, {m.turn} to move, holdings {m.holdings}\n{m.position}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def trace(self) -> str:
        """The match so far in `rajapasu replay`'s trace format."""
        return self.game.to_trace()


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped in PettingZoo's order and bounds checks."""
    e = RajaPasuEnv(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


raw_env = RajaPasuEnv


class raja_pasu_v0:  # noqa: N801  (the Farama naming: module-like name_vN)
    """``raja_pasu_v0.env(**kwargs)`` and ``raja_pasu_v0.raw_env(**kwargs)``."""

    env = staticmethod(env)
    raw_env = RajaPasuEnv


class RajaPasuSingleEnv(gymnasium.Env):
    """Raja Pasu for one learner against a built-in player (Gymnasium API).

    ``RajaPasuSingleEnv(opponent="greedy", seat="south", **kwargs)``: the learner plays
    ``seat`` ("south", "north" or "random", drawn at each reset), the opponent is any
    built-in player spec (``"random"``, ``"greedy"``, ``"minimax:4"``, ``"mcts:256"``,
    ``"perfect:match"`` where its tables exist or can be solved, ...), seeded by the reset's
    seed. Observations are the AEC environment's ``observation`` vector; the action mask is
    ``info["action_mask"]``. An illegal action (an unmasked learner's) ends the episode as a
    loss (reward -1, ``info["illegal"]`` the pit) with ``illegal="lose"`` (the default), or
    raises ``UsageError`` with ``illegal="raise"``. The other keyword arguments are the AEC
    environment's.
    """

    metadata = {"render_modes": RENDER_MODES}

    def __init__(
        self, opponent: str = "random", seat: str = "south", illegal: str = "lose", render_mode: Optional[str] = None, **kwargs: Any
    ):
        _check_choice("seat", seat, SIDES + ("random",))
        _check_choice("illegal", illegal, ("lose", "raise"))
        self.illegal = illegal
        self._lost_by = None
        self.aec = RajaPasuEnv(render_mode=render_mode, **kwargs)
        self.opponent_spec = opponent
        BuiltinPlayer(opponent)  # a bad spec raises UsageError now
        self.seat_choice = seat
        self.render_mode = render_mode
        space = self.aec.observation_space("player_0")
        self.observation_space = space["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.seat = "south" if seat == "random" else seat

    def _info(self) -> Dict[str, Any]:
        agent = self.aec.side_agent[self.seat]
        info = dict(self.aec.infos.get(agent, {}))
        info["action_mask"] = self.aec.observe(agent)["action_mask"]
        if self._lost_by is not None:
            info["illegal"] = self._lost_by
            info["action_mask"][:] = 0
        return info

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self.aec.side_agent[self.seat])["observation"]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        super().reset(seed=seed)
        self.aec.reset(seed=None if seed is None else int(self.np_random.integers(2**31)))
        if self.seat_choice == "random":
            self.seat = SIDES[int(self.np_random.integers(2))]
        opponent_side = SIDES[1 - SIDES.index(self.seat)]
        # The opponent's stream is drawn from the environment's: a seeded reset replays the match.
        self._opponent = BuiltinPlayer(self.opponent_spec, seed=int(self.np_random.integers(2**63)), seat=opponent_side)
        self._lost_by = None
        self._opponent_moves()
        return self._obs(), self._info()

    def _opponent_moves(self) -> float:
        """Plays the opponent until the learner is to move or the match is over; returns the
        learner's reward meanwhile."""
        me = self.aec.side_agent[self.seat]
        reward = 0.0
        g = self.aec.game
        while not g.is_over and g.turn != self.seat:
            self.aec.step(self._opponent.choose(g.match))
            reward += self.aec.rewards.get(me, 0.0)
        return reward

    def step(self, action):
        me = self.aec.side_agent[self.seat]
        if self.aec.game.is_over or self._lost_by is not None:
            raise UsageError("step() after the match's end: call reset()")
        if int(action) not in self.aec.game.legal_moves() and self.illegal == "lose":
            self._lost_by = int(action)
            return self._obs(), -1.0, True, False, self._info()
        self.aec.step(int(action))
        reward = self.aec.rewards.get(me, 0.0) + self._opponent_moves()
        g = self.aec.game
        terminated = g.is_over and g.winner is not None
        truncated = g.is_over and g.winner is None
        return self._obs(), float(reward), terminated, truncated, self._info()

    def render(self):
        return self.aec.render()
