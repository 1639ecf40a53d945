"""The agent handle: the only thing a game talks to.

    start_game(GameStart)  fresh agent, empty history, its random numbers seeded
    request(last)          last = (mine, theirs) as played in the previous turn, or None
    collect() -> Reply     the answer to the last request (waits up to the time limit)
    end_game(), close()

`request` does not wait for the agent, so a game asks both agents before collecting either
answer: they think at the same time and neither can learn the other's moves for the turn.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..rules import Payoffs

INVALID, EXCEPTION, TIMEOUT, CRASH = "invalid", "exception", "timeout", "crash"
FAULT_KINDS = (INVALID, EXCEPTION, TIMEOUT, CRASH)


@dataclass(frozen=True)
class Fault:
    kind: str
    message: str


class Reply(NamedTuple):
    """moves is the canonical move string, or None: play the default answer. A None with no
    fault means the agent is already known to be out for this game (its process died)."""

    moves: str | None
    fault: Fault | None = None
    warning: str | None = None


_PLAIN_REPLIES: dict[str, Reply] = {}


def _new_plain_reply(moves: str) -> Reply:
    reply = _PLAIN_REPLIES[moves] = Reply(moves)
    return reply


def plain_reply(moves: str) -> Reply:
    """The reply for a well-formed answer: shared, since most answers are one of a few."""
    return _PLAIN_REPLIES.get(moves) or _new_plain_reply(moves)


@dataclass(frozen=True)
class GameStart:
    agent_seed: int
    moves_per_turn: int
    payoffs: Payoffs


SILENT_DEFAULT = Reply(None)


class DefaultHandle:
    """An agent that could not be loaded: it plays the default answer, with no new faults."""

    def __init__(self, name: str, reason: str):
        self.name = name
        self.reason = reason
        self.status_message = reason

    def start_game(self, start: GameStart) -> None:
        pass

    def request(self, last) -> None:
        pass

    def collect(self) -> Reply:
        return SILENT_DEFAULT

    def end_game(self) -> None:
        pass

    def close(self) -> None:
        pass

    def captured_output(self) -> str:
        return ""
