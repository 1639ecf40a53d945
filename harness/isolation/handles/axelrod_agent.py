"""An `axelrod:` agent's handle: a connection to the run's one Axelrod host.

The host (harness/isolation/axelrod_host.py) is started by the first such handle a
monitor process opens and serves every `axelrod:` agent of the run, each on a connection
of its own, so the library (13-15 s of CPU) is imported once per run. A forked worker
(`--isolation none --jobs N`) inherits the host's address and opens its own connection to
the same host (`fork_child` is False): still one host, and one import, per run.

It is trusted library code, so it is not held to the students' per-call limit (a call
waits behind the other agents' calls in the one host, and the strategy is not a student's
to make faster); a call unanswered after `CALL_BACKSTOP` seconds is a `timeout` fault and
the agent is not asked again that game (the host cannot be interrupted; its next game
opens a new connection). The host's import has its own allowance (`IMPORT_ALLOWANCE`), not
an agent file's `--load-timeout`: a loaded machine has taken two minutes.
"""
from __future__ import annotations

import atexit
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from harness.core.errors import LoadError
from harness.core.fault_policy import FAULT_POLICY, Event

from ..axelrod_host import END, ERROR, GAME, LOADERR, MOVES, OPEN, READY, TURN
from .agent_handle import SILENT_DEFAULT, Fault, GameStart, Last, Reply, plain_reply

CALL_BACKSTOP = 60.0        # seconds: a call of trusted code that is this late is given up
IMPORT_ALLOWANCE = 600.0    # seconds for the host to import the library and answer OPEN
_READ = select.POLLIN | select.POLLHUP | select.POLLERR


class AxelrodHost:
    """The run's Axelrod host process, listening on a socket in a private folder."""

    def __init__(self):
        self.owner = os.getpid()
        self.folder = tempfile.mkdtemp(prefix="pdharness-axelrod-")   # 0700: ours only
        self.address = os.path.join(self.folder, "host")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.address)
            listener.listen(512)   # connections wait here while the host imports
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness.isolation.axelrod_host", "--listen-fd",
                 str(listener.fileno())],
                pass_fds=(listener.fileno(),), stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finally:
            listener.close()
        atexit.register(self.close)

    def connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.address)
        except OSError as error:
            sock.close()
            raise LoadError(f"the Axelrod host cannot be reached: {error.strerror}") from None
        return sock

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if os.getpid() != self.owner:   # a forked worker's copy: the parent's to end
            return
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stdin is not None:
            self.process.stdin.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_host: list[AxelrodHost] = []
_host_lock = threading.Lock()


def shared_host() -> AxelrodHost:
    """This run's host, started on first use (a dead one is replaced)."""
    with _host_lock:
        if not _host or (_host[0].owner == os.getpid() and not _host[0].alive()):
            if _host:
                _host[0].close()
            _host[:] = [AxelrodHost()]
        return _host[0]


class AxelrodHandle:
    """One `axelrod:` agent, played by the shared host over a connection of its own."""

    printed = None   # library code: nothing it prints is an agent's to show

    def __init__(self, name: str, strategy_class: str):
        self.name = name
        self.strategy_class = strategy_class
        self.deadline = 0.0
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.ended = False     # the host closed the connection
        self.waiting = False   # a TURN sent, its reply not yet read
        self.out = False       # given up on for this game
        self.unplayed = ""     # why this game could not start, until its first turn says it
        self.per_turn = 1
        self._connect()

    def _connect(self, wait: float = IMPORT_ALLOWANCE) -> None:
        sock = shared_host().connect()
        self.sock, self.buffer, self.ended = sock, b"", False
        sock.sendall(f"{OPEN} {self.strategy_class}\n".encode("ascii"))
        line = self._line(time.monotonic() + wait)
        if line == READY:
            return
        self._drop()
        if line is None:
            raise LoadError("the Axelrod host did not answer (it imports the library in "
                            f"13-15 s of CPU; waited {wait:g} s)")
        raise LoadError(line[len(LOADERR) + 1:] if line.startswith(LOADERR) else
                        "the Axelrod host ended while it loaded")

    def _line(self, deadline: float) -> str | None:
        """The next reply line, waiting until `deadline`; None past it or at the end."""
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if self.sock is None or self.ended or left <= 0 or not self._receive(left):
                return None
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def _receive(self, wait: float) -> bool:
        """Read what arrives within `wait` seconds; False at the end of the connection."""
        assert self.sock is not None
        poller = select.poll()
        poller.register(self.sock, _READ)
        if not poller.poll(max(0, int(wait * 1000) + 1)):
            return True
        try:
            chunk = self.sock.recv(65536)
        except OSError:
            chunk = b""
        self.buffer += chunk
        self.ended = not chunk
        return bool(chunk)

    def _send(self, line: str) -> bool:
        if self.sock is None:
            return False
        try:
            self.sock.sendall(line.encode("ascii") + b"\n")
            return True
        except OSError:
            self._drop()
            return False

    def _drop(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer, self.waiting = None, b"", False

    # -- AgentHandle -----------------------------------------------------------------------
    def start_game(self, start: GameStart) -> None:
        if self.sock is None:   # given up on last game: a new connection, to a host that
            try:                # has imported the library (it may still be in that call)
                self._connect(CALL_BACKSTOP)
            except LoadError as error:
                self.out, self.unplayed = True, str(error)
                return
        payoffs = start.payoffs
        self.per_turn, self.out = start.moves_per_turn, False
        self._send(f"{GAME} {start.agent_seed} {start.moves_per_turn} "
                   f"{payoffs.T} {payoffs.R} {payoffs.P} {payoffs.S}")

    def request(self, last: Last) -> None:
        if self.out:
            return
        played = "" if last is None else f" {last[0]} {last[1]}"
        self.waiting = self._send(TURN + played)
        self.deadline = time.monotonic() + CALL_BACKSTOP

    def collect(self) -> Reply:
        if self.unplayed:   # the game it could not start: said once, as a crash is
            message, self.unplayed = self.unplayed, ""
            return Reply(None, Fault(FAULT_POLICY.kind(Event.DIED), message))
        if self.out:
            return SILENT_DEFAULT
        if not self.waiting:
            return self._gone(Event.DIED, "the Axelrod host ended")
        self.waiting = False
        line = self._line(self.deadline)
        if line is None:
            if self.ended or self.sock is None or not shared_host().alive():
                return self._gone(Event.DIED, "the Axelrod host ended")
            return self._gone(Event.NO_ANSWER,
                              f"the Axelrod host did not answer within {CALL_BACKSTOP:g} s")
        word, _, rest = line.partition(" ")
        if word == MOVES and len(rest) == self.per_turn and not rest.strip("CD"):
            return plain_reply(rest)
        if word == ERROR:
            return Reply(None, Fault(FAULT_POLICY.kind(Event.RAISED), rest))
        return Reply(None, Fault(FAULT_POLICY.kind(Event.BAD_ANSWER),
                                 f"the Axelrod host answered {line[:80]!r}"))

    def _gone(self, event: Event, message: str) -> Reply:
        """Not asked again this game; a new connection for the next."""
        self.out = True
        self._drop()
        return Reply(None, Fault(FAULT_POLICY.kind(event), message))

    def end_game(self) -> None:
        if self.waiting:   # an answer never collected: its line would be read as the next
            self._drop()
        self._send(END)

    def close(self) -> None:
        self._drop()

    def captured_output(self) -> str:
        return ""   # the host's output is not an agent's

    def fork_child(self) -> bool:
        return False   # a worker opens a connection of its own to the same host

    # -- PollableHandle --------------------------------------------------------------------
    def waiting_on(self) -> dict[int, int]:
        if not self.waiting or self.sock is None or self.ended or b"\n" in self.buffer:
            return {}
        return {self.sock.fileno(): _READ}

    def pump(self, fd: int, events: int) -> None:
        if self.sock is None:
            return
        try:
            chunk = self.sock.recv(65536, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        self.buffer += chunk
        self.ended = not chunk
