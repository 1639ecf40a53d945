"""Agents served by a student's SBCL REPL (`(monitor ...)` of lisp_bridge/repl_monitor.lisp).

The REPL starts `pdharness repl-serve` and serves its own functions over pipes it hands
down: one request pipe for all of them (each request line starts with the agent's channel
number: the REPL reads one stream, in order, and answers one call at a time) and one reply
pipe per agent. Everything past the channel number is the host line protocol of
docs/DESIGN.md, and the replies are read and checked by the process handle's own code
(`ProcessHandle`, `HostProcess`, `ReplyReader`): READY, one marked reply per TURN, the junk
allowance, the grammar of MOVES/INVALID/ERROR/TIMEOUT. What differs is only where the
process is: the REPL cannot be killed or restarted from here. So:
- the REPL stops an overlong call itself (`sb-ext:with-timeout`) and answers TIMEOUT; the
  monitor's own deadline is a backstop, longer than the limit by what the REPL may spend
  first on the other agent of the same game (games are played one at a time);
- a channel the monitor gives up on (a backstop timeout, a protocol violation, its pipe
  closed) is closed for good: the agent plays the default answer for the rest of the
  tournament, with a `crash` fault saying why, as a host that cannot be restarted does.
"""
from __future__ import annotations

import os
import select
import time
from collections import deque

from harness.core import protocol
from harness.core.errors import HarnessError, LoadError
from harness.core.fault_policy import FAULT_POLICY, Event
from harness.core.verdicts import FaultKind

from ..descriptors import close_held
from .agent_handle import Fault, Reply
from .captured_output import CapturedOutput
from .host_process import HostProcess
from .process import ProcessHandle
from .replies import ControlReader, ReplyReader

BACKSTOP_SLACK = 2.0       # seconds past the REPL's own limits before the monitor gives up


class ReplChannels:
    """The pipes the REPL handed down: the shared request pipe, a reply pipe per name."""

    def __init__(self, requests_fd: int, replies: dict[str, int], token: str):
        self.requests_fd = requests_fd
        self.replies: dict[str, int | None] = dict(replies)
        self.numbers = {name: number for number, name in enumerate(replies)}
        self.token = token
        self.outgoing = bytearray()    # shared: requests go out whole and in order
        self.closed: dict[str, str] = {}   # name -> why the monitor gave up on it
        for fd in (requests_fd, *replies.values()):
            try:
                os.set_blocking(fd, False)
            except OSError as error:
                raise HarnessError(f"repl-serve: descriptor {fd} is not open "
                                   f"({error.strerror})") from error


_CHANNELS: ReplChannels | None = None


def serve_from(channels: ReplChannels) -> None:
    """Agents of kind `repl` are served by these channels (one REPL per monitor run)."""
    global _CHANNELS
    _CHANNELS = channels


class ReplHost(HostProcess):
    """The REPL's side of one agent, seen as a host: the same reading and checking, on
    pipes the REPL holds. Nothing is started or killed here."""

    def __init__(self, channels: ReplChannels, name: str, output: CapturedOutput):
        self.channels, self.name = channels, name
        self.prefix = f"{channels.numbers[name]} "
        self.output = output
        self.request_fd = channels.requests_fd
        reply_fd = channels.replies[name]
        assert reply_fd is not None   # _launch checked it is still open
        self.reply_fd = reply_fd
        self.stderr_fd = -1
        self.outgoing = channels.outgoing
        self.replies = ReplyReader(channels.token.encode("ascii") + b" ")
        self.answers_fd = -1         # one channel: no zygote, nothing of a game to end
        self.said: deque[str] = deque()
        self.control = ControlReader(b"")   # no zygote: nothing is read there
        self.died = None
        self.ending = self.in_game = False
        self.released_at = 0.0
        self.ended = False
        self.stderr_open = False     # what REPL functions print shows in the REPL
        self.usually_watched = {self.reply_fd: select.POLLIN}
        self.make_polls()
        self.busy = 0.0
        self.cpu_budget = None
        self.on_end = lambda: None

    def call_started(self) -> None:
        pass   # not a process of ours; the REPL times its calls itself

    def at_deadline(self) -> tuple[float, int | None]:
        return 0.0, None

    def send(self, text: str) -> None:
        super().send("".join(self.prefix + line + "\n" for line in text.splitlines()))

    def first_words(self, deadline: float) -> str:
        return self.read_line(deadline)

    def start_game(self, values: tuple[int, ...], answered: bool = False) -> None:
        self.send(protocol.REPL_GAME.line(*values))   # a REPL's GAME has no answer

    def end_game(self) -> None:
        self.send(protocol.END.line())

    def close_pipes(self) -> None:
        self.kill()

    def exit_description(self) -> str:
        return "the REPL closed the agent's pipe"

    def kill(self) -> None:
        """Give up on the channel: close our end, so the REPL's next reply on it fails
        and it stops serving that agent."""
        if self.channels.replies.get(self.name) is not None:
            self.channels.closed.setdefault(self.name, "given up on")
            self.channels.replies[self.name] = None   # forgotten first: closed once
            close_held(self, "reply_fd")

    def quit(self) -> None:
        self.kill()


class ReplHandle(ProcessHandle):
    def __init__(self, name: str, channels: ReplChannels, timeout: float):
        self.channels = channels
        self.limit = timeout
        # the REPL answers TIMEOUT itself after `timeout`; this deadline only catches a
        # call it could not interrupt, after the other agent of the game had its own
        super().__init__(name, [], {}, 2 * timeout + BACKSTOP_SLACK)

    def _launch(self, start_timeout: float | None = None) -> HostProcess:
        if self.channels.replies.get(self.name) is None:
            raise LoadError("the REPL no longer serves it (a call did not return in time, "
                            "or its replies broke the protocol)")
        host = ReplHost(self.channels, self.name, self.output)
        try:
            line = host.read_line(time.monotonic() + (start_timeout or self.start_timeout))
        except Exception as error:    # TimeoutError, HostGone, Violation: one reason each
            host.kill()
            raise LoadError(f"the REPL did not say READY ({type(error).__name__})") from None
        if line != protocol.READY.word:
            host.kill()
            raise LoadError(f"the REPL answered {line[:80]!r} instead of READY")
        return host

    def _end_its_process(self) -> None:
        """There is no process of its own to end: the channel is given up on."""
        self._lose_host()

    def collect(self) -> Reply:
        reply = super().collect()
        fault = reply.fault
        if fault is not None and fault.kind == FaultKind.TIMEOUT \
                and "process killed" in fault.message:
            # the process handle's words for a host it kills; here the REPL lives on
            return Reply(None, Fault(FAULT_POLICY.kind(Event.NO_ANSWER),
                                     f"no answer within {self.timeout:g} s, though "
                                     f"the REPL stops a call after {self.limit:g} s; "
                                     "the monitor stops asking this REPL"))
        return reply

    def captured_output(self) -> str:
        return ""


def open_repl_handle(spec, isolation) -> ReplHandle:
    if _CHANNELS is None or spec.name not in _CHANNELS.numbers:
        raise LoadError(f"{spec.name} is served by a REPL, and none serves it here")
    return ReplHandle(spec.name, _CHANNELS, isolation.timeout)
