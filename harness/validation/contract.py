"""The contract, played: short seeded games against built-ins through the real agent handle
and isolation mode, so a file that validates plays, and one that would fault does not."""
from __future__ import annotations

from ..agents import AgentSpec, builtin_spec
from ..errors import LoadError
from ..game import play_game
from ..handles.opening import Isolation, open_handle
from ..rules import FlipParams, GameParams
from .problems import Problem

OPPONENTS = ("random", "defect", "titfortat")
TURNS = 12
SEED = 20261122
FAULT_CODES = {"invalid": "bad-answer", "crash": "exception", "exception": "exception",
               "timeout": "timeout"}


def play_contract(spec: AgentSpec, isolation: Isolation) -> tuple[list[Problem], list[str]]:
    """Problems and warnings from playing the agent, through the tournament's own code."""
    try:
        agent = open_handle(spec, isolation)
    except LoadError as error:
        return [Problem("load-error", str(error))], []
    problems: dict[str, Problem] = {}
    warnings: list[str] = []
    params = GameParams(flip=FlipParams(0.1, 0.0), timeout=isolation.timeout)
    try:
        for number, opponent_name in enumerate(OPPONENTS):
            opponent = open_handle(builtin_spec(opponent_name), Isolation("none"))
            game = play_game(agent, opponent, TURNS, SEED + number, params) \
                if spec.name < opponent_name else \
                play_game(opponent, agent, TURNS, SEED + number, params)
            side = "a" if game.a == spec.name else "b"
            _note(game, side, opponent_name, problems, warnings)
    finally:
        agent.close()
    return list(problems.values()), warnings


def _note(game, side, opponent, problems, warnings) -> None:
    for turn, fault in game.faults(side):
        code = FAULT_CODES[fault.kind]
        if code not in problems:
            problems[code] = Problem(code, f"call {turn} against {opponent}: {fault.message}")
    warning = game.warnings.get(side)
    if warning and warning not in warnings:
        warnings.append(warning)
