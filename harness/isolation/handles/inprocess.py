"""`--isolation none`: the agent runs in the monitor's own process (trusted code, fastest).

A call that returns after the time limit is a `timeout` fault (its answer is discarded),
but a call that never returns cannot be stopped here: that is what the process modes are for.
Three such late calls in a row and the game stops asking the agent until its next game, as
in the process modes (harness/core/fault_policy.py, applied by harness/engine/game.py).
"""
from __future__ import annotations

import sys
import threading
import time

from harness.agents.runtime import ERROR_REPLY, MOVES_REPLY, AgentRuntime, StrategyRuntime
from harness.core.fault_policy import FAULT_POLICY, Event

from .agent_handle import SILENT_DEFAULT, Fault, GameStart, Last, ReadyHandle, Reply, plain_reply


class _InMonitor(ReadyHandle):
    """What both in-monitor handles share: the answer is ready as soon as it is asked for."""

    reply: Reply = SILENT_DEFAULT   # the answer to the last request

    def collect(self) -> Reply:
        return self.reply

    def end_game(self) -> None:
        self.reply = SILENT_DEFAULT


class Printed:
    """What an agent file run in the monitor prints (its stdout and stderr while it loads,
    starts a game or answers), kept for `play` and the record as a host process's output
    is, up to the same cap: never on the monitor's own stdout, where it would break a
    `--format json`/`csv`/`lisp` result."""

    CAP = 64 * 1024   # characters, as a host process's output (handles/process.py)

    def __init__(self):
        self.kept: list[str] = []
        self.size = 0
        self.dropped = 0

    def write(self, text) -> int:
        text = str.__str__(text) if isinstance(text, str) else str(text)
        room = self.CAP - self.size
        if room > 0:
            self.kept.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(0, room))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def mark(self) -> tuple[int, int]:
        """Where what it holds ends now, for `since`."""
        return len(self.kept), self.size + self.dropped

    def since(self, mark: tuple[int, int]) -> tuple[str, int]:
        """What was printed after `mark`: the text kept, and how many characters in all."""
        parts, total = mark
        return "".join(self.kept[parts:]), self.size + self.dropped - total

    def add(self, text: str, count: int) -> None:
        """What a copy of this agent printed in a forked worker (`since` there), kept as if
        printed here: games merged in their order keep what one process would have."""
        self.write(text)
        self.dropped += count - len(text)

    def text(self) -> str:
        text = "".join(self.kept)
        return text + (f"\n[... {self.dropped} more characters not kept]" if self.dropped
                       else "")

    def run(self, call, *args):
        """call(*args) with what this thread prints kept here. Agents load on parallel
        threads, so sys.stdout is not swapped per call (one thread would restore another's):
        a router, put in place once, sends each thread's writes to its agent's Printed or,
        from any other code, on to the stream it replaced."""
        _route()
        previous = getattr(_sinks, "printed", None)
        _sinks.printed = self
        try:
            return call(*args)
        finally:
            _sinks.printed = previous


_sinks = threading.local()   # .printed: the Printed of the agent this thread is running
_route_lock = threading.Lock()


class _Router:
    """sys.stdout or sys.stderr while agents run in the monitor: a thread running an agent
    writes to its Printed; everyone else, to the stream it replaced (`real`)."""

    def __init__(self, real):
        self.real = real

    def write(self, text) -> int:
        printed = getattr(_sinks, "printed", None)
        return (printed or self.real).write(text)

    def flush(self) -> None:
        if getattr(_sinks, "printed", None) is None:
            self.real.flush()

    def __getattr__(self, name):   # encoding, isatty, fileno, buffer, ...: the real stream's
        return getattr(self.real, name)


def _route() -> None:
    if type(sys.stdout) is _Router and type(sys.stderr) is _Router:
        return
    with _route_lock:
        if type(sys.stdout) is not _Router:
            sys.stdout = _Router(sys.stdout)
        if type(sys.stderr) is not _Router:
            sys.stderr = _Router(sys.stderr)


class InProcessHandle(_InMonitor):
    printed: Printed | None

    def __init__(self, name: str, factory, hist_pair, timeout: float,
                 printed: Printed | None = None):
        self.name = name
        self.timeout = timeout
        self.runtime = AgentRuntime(factory, hist_pair)
        # an agent file's prints are kept (Printed); a function handed to the API prints
        # where its caller sees it, as any function of theirs would
        self.printed = printed

    def start_game(self, start: GameStart) -> None:
        if self.printed is None:
            self.runtime.start_game(start.agent_seed, start.moves_per_turn, start.payoffs)
        else:
            self.printed.run(self.runtime.start_game, start.agent_seed, start.moves_per_turn,
                             start.payoffs)

    def captured_output(self) -> str:
        return self.printed.text() if self.printed is not None else ""

    def request(self, last: Last) -> None:
        runtime = self.runtime
        if last is not None:
            runtime.record(last[0], last[1])
        began = time.perf_counter()
        kind, text, warning = (runtime.call() if self.printed is None
                               else self.printed.run(runtime.call))
        elapsed = time.perf_counter() - began
        if elapsed > self.timeout:
            self.reply = Reply(None, Fault(FAULT_POLICY.kind(Event.LATE),
                                           f"answered after {elapsed:.2f} s "
                                           f"(limit {self.timeout:g} s)"))
        elif kind == MOVES_REPLY:
            self.reply = plain_reply(text) if warning is None else Reply(text, None, warning)
        else:
            event = Event.RAISED if kind == ERROR_REPLY else Event.BAD_ANSWER
            self.reply = Reply(None, Fault(FAULT_POLICY.kind(event), text))


class BuiltinHandle(_InMonitor):
    """A built-in strategy inside the monitor: told the played moves directly, with no hist
    to build and no answer to check (it is our own code). The strategy is started by the
    same StrategyRuntime a host process runs a built-in with, so it plays alike in both."""

    def __init__(self, name: str, builtin):
        self.name = name
        self.runtime = StrategyRuntime(builtin)

    def start_game(self, start: GameStart) -> None:
        strategy = self.runtime.start_game(start.agent_seed, start.moves_per_turn,
                                           start.payoffs)
        self.step = strategy.step

    def request(self, last: Last) -> None:
        self.reply = plain_reply(self.step(last))
