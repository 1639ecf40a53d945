"""The contract, played: short games, seeded afresh for each validation, against built-ins through the tournament's own
agent handle, isolation mode and game loop, so a file that validates plays, and one that
would fault does not validate.

Each fault the game records becomes a problem code (the fault policy says which, and
whether to play on), quoting the first call that produced it (the hist and score the agent
was given) and what went wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from harness.agents.lang import PYTHON
from harness.agents.specs import builtin_spec
from harness.core.errors import LoadError
from harness.core.fault_policy import FAULT_POLICY, FaultCode
from harness.core.rules import GameParams
from harness.core.seeds import derive, fresh_seed, sides
from harness.engine.game import play_game

from .problems import Problem

SHOWN_PAIRS = 4              # a long hist is quoted by its last few pairs
SHORT_GAME = 20              # turns against defect and titfortat


@dataclass(frozen=True)
class ContractParams:
    # the tournament's rules that shape an agent's run (moves per turn, flips and their
    # decay, payoffs): the contract is played by them, so a file that validates plays
    game: GameParams = field(default_factory=GameParams)
    # the games' seed: fresh for every validation (a fixed, public one would let an agent
    # recognise validation by its first random draw), printed so a failure can be replayed
    seed: int | None = None
    longest: int = 50        # the tournament's longest game (--length LMAX)

    @classmethod
    def of(cls, settings, seed: int | None = None) -> "ContractParams":
        """The contract of a tournament run by SETTINGS (engine.tournament.Settings)."""
        return cls(settings.game, seed, settings.length.high)

    def opponents(self) -> tuple[tuple[str, int], ...]:
        """(opponent, turns): `random` for a hist with every pair in it, in a game as long
        as the tournament's longest; `defect` and `titfortat` for the hists students
        forget."""
        short = min(SHORT_GAME, self.longest)
        return (("random", self.longest), ("defect", short), ("titfortat", short))

    def seeded(self) -> "ContractParams":
        return self if self.seed is not None else replace(self, seed=fresh_seed())

    def game_seed(self, number: int) -> int:
        return derive(self.seed, "validate", number)

    def game_params(self) -> GameParams:
        return self.game


def against_builtins(agent, opponents, params, seed_of):
    """One game of the open handle `agent` against each built-in of `opponents` ((name,
    turns), in order), each a fresh in-monitor handle, through the tournament's own game
    loop, side "a" the name that sorts first (as in a tournament): yields (the built-in's
    name, the game, the agent's side). `seed_of(number, a, b)` is the seed of game
    `number` (from 0) between agents named a and b. The caller closes `agent`. Validation
    plays its contract games so, and the autograder its practice games."""
    # heavy (concurrent, ctypes, email): loaded only where used
    from harness.isolation.handles.opening import Isolation, open_handle

    for number, (name, turns) in enumerate(opponents):
        opponent = open_handle(builtin_spec(name), Isolation("none"))
        agent_first = sides(agent.name, opponent.name)[0] == agent.name
        a, b = (agent, opponent) if agent_first else (opponent, agent)
        game = play_game(a, b, turns, seed_of(number, a.name, b.name), params)
        yield name, game, "a" if agent_first else "b"


def play_contract(spec, isolation, params: ContractParams | None = None
                  ) -> tuple[list[Problem], list[str]]:
    """Problems and warnings from playing the agent, through the tournament's own code."""
    # heavy (concurrent, ctypes, email): loaded only where used
    from harness.isolation.handles.opening import open_handle

    params = (params or ContractParams()).seeded()
    try:
        agent = open_handle(spec, isolation)
    except LoadError as error:
        return [Problem(FaultCode.LOAD_ERROR, str(error))], []
    problems: dict[str, Problem] = {}
    warnings: list[str] = []
    game_params = params.game_params()
    try:
        for opponent_name, game, side in against_builtins(   # seeds by the game's number
                agent, params.opponents(), game_params, lambda number, a, b: params.game_seed(number)):
            _note(game, side, spec, opponent_name, problems, warnings)
            if any(FAULT_POLICY.stops_validation(code) for code in problems):
                break
    finally:
        agent.close()
    return list(problems.values()), warnings


def _note(game, side, spec, opponent, problems, warnings) -> None:
    for turn, fault in game.faults(side):
        code = FAULT_POLICY.problem_code(fault.kind)
        if code not in problems:
            call = quote_call(spec, game, side, turn)
            problems[code] = Problem(code, f"call {turn} against {opponent}, {call}: "
                                     f"{FAULT_POLICY.problem_text(fault.kind, fault.message)}")
    warning = game.warnings.get(side)
    if warning and warning not in warnings:
        warnings.append(warning)


def quote_call(spec, game, side: str, turn: int) -> str:
    """The call as the agent's language writes it, e.g. (ChenDiaz '((C C) (D C)) '(3 8))."""
    played_mine = game.played_a if side == "a" else game.played_b
    played_theirs = game.played_b if side == "a" else game.played_a
    pairs = [(m, t)
             for mine, theirs in zip(played_mine[:turn - 1], played_theirs[:turn - 1],
                                     strict=False)
             for m, t in zip(mine, theirs, strict=False)]
    running_mine = game.running_a if side == "a" else game.running_b
    running_theirs = game.running_b if side == "a" else game.running_a
    score = (running_mine[turn - 2], running_theirs[turn - 2]) if turn > 1 else (0, 0)
    language = spec.file_language or PYTHON  # a built-in or callable: as Python
    hist = _shown([language.quote_pair(*pair) for pair in pairs], language.pair_separator)
    return language.quote_call(spec.name, hist, score)


def _shown(written: list[str], separator: str) -> str:
    """The pairs as written, the earliest left out past SHOWN_PAIRS (and one more)."""
    if len(written) <= SHOWN_PAIRS + 1:
        return separator.join(written)
    earlier = len(written) - SHOWN_PAIRS
    return separator.join([f"...{earlier} earlier pairs..."] + written[-SHOWN_PAIRS:])
