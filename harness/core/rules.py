"""The game's rules, as docs/rules.md states them: payoffs, flips,
parameters.

Everything here is pure and cheap: no I/O, no randomness of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ParameterError

COOPERATE, DEFECT = "C", "D"
MOVES = (COOPERATE, DEFECT)
MAX_MOVES_PER_TURN = 1000   # an answer travels in a host line of at most 4096 bytes
FLIPPED = {COOPERATE: DEFECT, DEFECT: COOPERATE}

PERCENT_PER_TURN = "percent-per-turn"
FRACTION_PER_MOVE = "fraction-per-move"
DECAY_MODES = (PERCENT_PER_TURN, FRACTION_PER_MOVE)


@dataclass(frozen=True)
class Payoffs:
    """Points per move: T temptation, R reward, P punishment, S sucker."""

    T: int = 5
    R: int = 3
    P: int = 1
    S: int = 0

    def __post_init__(self):
        if not self.T > self.R > self.P > self.S:
            raise ParameterError(
                f"payoff table T={self.T} R={self.R} P={self.P} S={self.S} "
                "breaks T > R > P > S")
        if not 2 * self.R > self.T + self.S:
            raise ParameterError(
                f"payoff table T={self.T} R={self.R} P={self.P} S={self.S} "
                "breaks 2R > T + S (alternating would beat cooperating)")

    def table(self) -> dict[tuple[str, str], tuple[int, int]]:
        """(my move, their move) -> (my points, their points)."""
        return {
            ("C", "C"): (self.R, self.R),
            ("C", "D"): (self.S, self.T),
            ("D", "C"): (self.T, self.S),
            ("D", "D"): (self.P, self.P),
        }

    def as_tuple(self) -> tuple[int, int, int, int]:
        return (self.T, self.R, self.P, self.S)


class _TurnPoints(dict):
    """(mine, theirs) -> (my points, theirs) for turns of moves, each worked out once from
    the payoff table, move k of `mine` against move k of `theirs`; a lookup that hits is
    a plain dict lookup, the hot path of a game."""

    _REMEMBERED = 4          # turns of up to 4 moves are remembered: at most 4**4 * 4**4 keys

    def __init__(self, payoffs: Payoffs):
        super().__init__(payoffs.table())
        self._per_move = payoffs.table()

    def __missing__(self, pair: tuple[str, str]) -> tuple[int, int]:
        mine, theirs = pair
        mine_total = theirs_total = 0
        for m, t in zip(mine, theirs, strict=False):
            gained, given = self._per_move[m, t]
            mine_total += gained
            theirs_total += given
        if len(mine) <= self._REMEMBERED:
            self[pair] = (mine_total, theirs_total)
        return mine_total, theirs_total


class Scorer:
    """The one place moves become points: `scorer(mine, theirs)` is (my points, theirs) for
    moves played one at a time, move k of `mine` against move k of `theirs` (strings of C/D
    of equal length: one turn, or one move); `scorer.points[mine, theirs]` is the same
    lookup without the call. The game, the agent's own running score, the record reader
    and the learner all score through it, so they cannot disagree."""

    __slots__ = ("points",)

    def __init__(self, payoffs: Payoffs = Payoffs()):
        self.points = _TurnPoints(payoffs)

    def __call__(self, mine: str, theirs: str) -> tuple[int, int]:
        return self.points[mine, theirs]


# What a fault does to the game (the default answer, timeouts in a row) is
# harness/core/fault_policy.py's.


@dataclass(frozen=True)
class FlipParams:
    """`flipParams` (F1 I) and how F decays (docs/rules.md, "Flips (noise)")."""

    start: float = 0.25
    decay: float = 0.1
    mode: str = PERCENT_PER_TURN

    def __post_init__(self):
        if not 0.0 <= self.start <= 1.0:
            raise ParameterError(f"flip chance F1={self.start} must be between 0 and 1")
        if self.decay < 0:
            raise ParameterError(f"flip decay I={self.decay} must not be negative")
        if self.mode not in DECAY_MODES:
            raise ParameterError(
                f"decay mode {self.mode!r} must be one of {', '.join(DECAY_MODES)}")

    def chance(self, turns_played: int, moves_played: int) -> float:
        """F for the next move, given what this agent has played in this game."""
        if self.mode == PERCENT_PER_TURN:
            f = self.start - (self.decay / 100.0) * turns_played
        else:
            f = self.start - self.decay * moves_played
        return min(1.0, max(0.0, f))

    def per_turn_constant(self) -> bool:
        """True when all moves of one turn share one F (so it is computed once a turn)."""
        return self.mode == PERCENT_PER_TURN or self.decay == 0


@dataclass(frozen=True)
class GameLength:
    """`gameLength` (Lmin Lmax): one length drawn per round, inclusive; or another horizon
    (harness/core/horizons.py), for which (Lmin Lmax) is the fixed length or the cap."""

    low: int = 10
    high: int = 50
    horizon: str = "uniform"
    stop_prob: float | None = None       # geometric: the chance a game ends after a turn

    def __post_init__(self):
        if self.low < 1:
            raise ParameterError(f"game length minimum {self.low} must be at least 1")
        if self.low > self.high:
            raise ParameterError(
                f"game length minimum {self.low} is greater than maximum {self.high}")
        if self.horizon != "uniform" or self.stop_prob is not None:
            from .horizons import check  # the host's image stays lean

            check(self.horizon, self.low, self.high, self.stop_prob)


@dataclass(frozen=True)
class GameParams:
    """What a game needs besides its two agents, its length and its seed. (The time an
    agent may take per call is how it is confined: `Isolation.timeout`, enforced by its
    handle and recorded from there.)"""

    flip: FlipParams = field(default_factory=FlipParams)
    moves_per_turn: int = 3
    payoffs: Payoffs = field(default_factory=Payoffs)
    default_answer: str = COOPERATE

    def __post_init__(self):
        # a record is a file anyone may edit: its value is held to the option's bounds too
        if not 1 <= self.moves_per_turn <= MAX_MOVES_PER_TURN:
            raise ParameterError(f"moves per turn {self.moves_per_turn} must be 1 to "
                                 f"{MAX_MOVES_PER_TURN}")
        if self.default_answer not in MOVES:
            raise ParameterError(f"default answer {self.default_answer!r} must be C or D")

    @property
    def default_moves(self) -> str:
        return self.default_answer * self.moves_per_turn
