"""A game played again from the moves its agents intended: how a resume checks a record's
games (harness/run/tournament_session.py) and how the monitor checks a game a cluster
worker sends back (harness/run/cluster/wire.py), one way.

Flips and scores are a pure function of the intended moves, the parameters and the game's
seed (harness/engine/game.py), so a game that does not replay to what was written down was
changed after it was played.
"""
from __future__ import annotations

import re

from harness.isolation.handles.agent_handle import ReadyHandle, Reply

from .game import play_game

# why intended moves cannot be the game's (NotMoves.why)
NOT_TURNS = "turns"          # not `length` turns of `moves_per_turn` moves, each C or D
NO_DEFAULT = "default"       # a faulty turn that did not play the default answer


class NotMoves(ValueError):
    """The intended moves cannot be this game's; `why` is NOT_TURNS or NO_DEFAULT."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


class Replay(ReadyHandle):
    """An agent handle that intends what was written down, turn by turn."""

    def __init__(self, name: str, intended):
        self.name, self.moves = name, iter(intended)

    def start_game(self, start) -> None:
        pass

    def request(self, last) -> None:
        pass

    def collect(self) -> Reply:
        return Reply(next(self.moves))

    def end_game(self) -> None:
        pass


def check_turns(intended: dict, length: int, params) -> None:
    """NotMoves(NOT_TURNS) unless each side ("a", "b") intended `length` turns of
    `params.moves_per_turn` moves, each C or D."""
    turn = re.compile(f"[CD]{{{params.moves_per_turn}}}")
    for moves in intended.values():
        if not isinstance(moves, list) or len(moves) != length or not all(
                isinstance(m, str) and turn.fullmatch(m) for m in moves):
            raise NotMoves(NOT_TURNS)


def replay(a: str, b: str, intended: dict, faulty, length: int, seed: int, params,
           round_number: int):
    """The game `params` and `seed` make of the moves agents `a` and `b` intended
    (`intended`: {"a": [turn, ...], "b": [...]}, checked by check_turns first), each faulty
    turn ((side, turn index) in `faulty`) having played the default answer: NotMoves
    (NO_DEFAULT) where one did not."""
    for side, index in faulty:
        if intended[side][index] != params.default_moves:
            raise NotMoves(NO_DEFAULT)
    return play_game(Replay(a, intended["a"]), Replay(b, intended["b"]), length, seed,
                     params, round_number)
