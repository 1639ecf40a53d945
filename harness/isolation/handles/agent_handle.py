"""The agent handle: the only thing a game talks to (`AgentHandle`, below).

    start_game(GameStart)  fresh agent, empty history, its random numbers seeded
    request(last)          last = (mine, theirs) as played in the previous turn, or None
    collect() -> Reply     the answer to the last request (waits up to the time limit)
    end_game(), close()

`request` does not wait for the agent, so a game asks both agents before collecting either
answer: they think at the same time and neither can learn the other's moves for the turn.
A runner that plays many games at once waits on their agents' pipes together
(`PollableHandle`); a handle whose answer is ready as soon as it is asked (`ReadyHandle`)
has nothing to wait on. Every handle class is both, checked by mypy where they are made.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple, Protocol

from harness.core.rules import Payoffs
from harness.core.verdicts import FaultKind


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    message: str


class Reply(NamedTuple):
    """moves is the canonical move string, or None: play the default answer. A None with no
    fault means the agent is already known to be out for this game (its process died)."""

    moves: str | None
    fault: Fault | None = None
    warning: str | None = None
    talk: dict | None = None   # a language-model agent's exchange this turn (harness/agents/llm)


class _PlainReplies(dict):
    """The one cache of replies to well-formed answers, by their moves: shared, since most
    answers are one of a few. Bounded: 3 moves a turn make 8 answers, and long turns are
    kept up to the bound all the same (past it, each gets a reply of its own)."""

    KEPT = 1024

    def __missing__(self, moves: str) -> Reply:
        reply = Reply(moves)
        if len(self) < self.KEPT:
            self[moves] = reply
        return reply


# The reply for a well-formed answer: a dict lookup (no Python frame), on every call's path.
plain_reply: Callable[[str], Reply] = _PlainReplies().__getitem__


@dataclass(frozen=True)
class GameStart:
    agent_seed: int
    moves_per_turn: int
    payoffs: Payoffs


SILENT_DEFAULT = Reply(None)

Last = tuple[str, str] | None   # (mine, theirs) as played in the previous turn; None first


class PrintedHere(Protocol):
    """What an agent run in the monitor's process printed (inprocess.Printed): a forked
    worker hands its share back to the parent's (harness/engine/runners.py)."""

    def mark(self) -> tuple[int, int]: ...
    def since(self, mark: tuple[int, int]) -> tuple[str, int]: ...
    def add(self, text: str, count: int) -> None: ...


class AgentHandle(Protocol):
    """What a game talks to, and what the handle pool opens, keeps and closes."""

    name: str

    @property
    def printed(self) -> PrintedHere | None:
        """What it printed in the monitor's process; None when it prints elsewhere (its
        own process's output is `captured_output`) or nowhere."""
        ...

    def start_game(self, start: GameStart) -> None: ...
    def request(self, last: Last) -> None: ...
    def collect(self) -> Reply: ...
    def end_game(self) -> None: ...
    def close(self) -> None: ...
    def captured_output(self) -> str: ...

    def fork_child(self) -> bool:
        """Called in a forked worker on a handle it inherited: let go of what belongs to
        the parent (a host's pipes); False when the worker must open one of its own."""
        ...


class PollableHandle(AgentHandle, Protocol):
    """A handle a runner can wait on together with others (harness/engine/runners.py)."""

    @property
    def deadline(self) -> float:
        """time.monotonic() by which the answer to the last request is due."""
        ...

    def waiting_on(self) -> dict[int, int]:
        """The fds to poll (and the poll events) before collect() can answer without
        waiting; empty when it can."""
        ...

    def pump(self, fd: int, events: int) -> None:
        """Act on what poll said about one of the fds of waiting_on()."""
        ...


class ReadyHandle:
    """What a handle whose answer is ready as soon as it is asked does as a PollableHandle:
    nothing to wait on, no process of its own, nothing captured."""

    deadline = 0.0
    printed: PrintedHere | None = None

    def waiting_on(self) -> dict[int, int]:
        return {}

    def pump(self, fd: int, events: int) -> None:
        pass

    def close(self) -> None:
        pass

    def captured_output(self) -> str:
        return ""  # its prints, if any, went to the monitor's own stdout

    def fork_child(self) -> bool:
        return True   # it lives in the monitor's memory, which the worker has a copy of


class Chatter:
    """A handle that may talk before it answers (a language-model agent with chat on).
    When both agents of a game chat, the game asks them one after the other each turn
    (harness/engine/game.py): the first speaker is told so, the second hears what the first said
    (never its moves)."""

    chats: bool = False

    def talk_turn(self, first: bool, heard: str | None) -> None:
        """Before the next request: whether it speaks first, and what it hears."""

    def said(self) -> str | None:
        """After collect(): its message this turn, if it may be shown to the other."""
        return None


class DefaultHandle(ReadyHandle):
    """An agent that could not be loaded: it plays the default answer, with no new faults."""

    def __init__(self, name: str, reason: str):
        self.name = name
        self.reason = reason

    def start_game(self, start: GameStart) -> None:
        pass

    def request(self, last: Last) -> None:
        pass

    def collect(self) -> Reply:
        return SILENT_DEFAULT

    def end_game(self) -> None:
        pass
