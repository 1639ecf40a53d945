"""One OS process per agent, started once and reused from game to game.

The monitor sends only what changed since the last call (the previous turn as played) and
reads back one marked line per call; nothing from the agent's process is evaluated or
unpickled, and every reply is checked against the protocol's grammar. A call past its
deadline gets the process killed from here and replaced, brought up to date with the game
so far; a process that dies is out for the rest of that game and replaced for the next.
"""
from __future__ import annotations

import errno
import os
import re
import secrets
import select
import signal
import subprocess
import time

from ..errors import LoadError, OutOfFiles
from ..runtime import one_line
from .base import (
    CRASH,
    EXCEPTION,
    INVALID,
    SILENT_DEFAULT,
    TIMEOUT,
    Fault,
    GameStart,
    Last,
    Reply,
    plain_reply,
)
from .replies import ReplyReader

OUTPUT_CAP = 64 * 1024
READ_CHUNK = 65536


class _Dead(Exception):
    """The host process ended."""


class _Violation(Exception):
    """The host's process broke the protocol (agent code writing on it): it is killed."""


class HostProcess:
    """A running host: the pipes, replies read without ever blocking, captured stderr.

    Every descriptor is non-blocking on the monitor's side. A request the host does not
    take at once waits here (`outgoing`) and is written as the pipe drains, within the
    call's deadline. Replies are read a chunk at a time by a ReplyReader, which holds the
    host to one reply per request (harness/handles/replies.py).
    """

    def __init__(self, argv, env, token, output, popen_options=None):
        self.output = output
        from ..sandbox import popen  # from a thread that outlives this one: see there

        self.process = popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, start_new_session=True, close_fds=True, **(popen_options or {}))
        stdin, stdout, stderr = self.process.stdin, self.process.stdout, self.process.stderr
        assert stdin is not None and stdout is not None and stderr is not None  # all PIPE
        self.request_fd = stdin.fileno()
        self.reply_fd = stdout.fileno()
        self.stderr_fd = stderr.fileno()
        for fd in (self.request_fd, self.reply_fd, self.stderr_fd):
            os.set_blocking(fd, False)   # the monitor's ends only: the host's stay as they are
        self.outgoing = bytearray()      # request bytes the host has not taken yet
        self.replies = ReplyReader(token.encode("ascii") + b" ")
        self.ended = False               # its reply pipe reached end of file
        self.stderr_open = True
        self.usually_watched = {self.reply_fd: select.POLLIN, self.stderr_fd: select.POLLIN}
        self.busy = 0.0            # seconds spent answering calls: a bound on its CPU time
        self.cpu_budget = None     # its CPU time limit (seconds), if any
        self.on_end = lambda: None  # once it is dead: what its launch set up goes (cgroup)

    def worn_out(self) -> bool:
        """Near its CPU time limit from honest work: retire it between games rather than
        have the limit kill it mid-game (a background thread burning CPU between calls
        is not counted here, and meets the limit)."""
        return self.cpu_budget is not None and self.busy > self.cpu_budget / 2

    # -- requests ---------------------------------------------------------------------------
    def send(self, text: str) -> None:
        """Queue a message that has no reply (GAME, SYNC, QUIT) and write what fits now."""
        self.outgoing += text.encode("ascii")
        self._flush()

    def ask(self, text: str) -> None:
        """Send a request that has exactly one reply. Whatever marked line came before it
        was sent answers nothing: reading the pipe first catches it."""
        while not (self.replies.broken or self.ended) and self._read_replies():
            pass
        self.replies.expect()
        self.send(text)

    def _flush(self) -> None:
        while self.outgoing:
            try:
                written = os.write(self.request_fd, self.outgoing)
            except BlockingIOError:
                return  # the host is not reading: the rest waits, within the deadline
            except OSError:  # broken pipe: the process is gone; the read will say so
                self.outgoing.clear()
                return
            del self.outgoing[:written]

    # -- replies ----------------------------------------------------------------------------
    def read_line(self, deadline: float) -> str:
        """The reply to the last request, or TimeoutError, _Violation or _Dead."""
        while True:
            if self.replies.broken is not None:
                raise _Violation(self.replies.broken)
            reply = self.replies.take()
            if reply is not None:
                return reply
            if self.ended:
                # its last words (the zygote's verdict) may still wait unread: an end seen
                # past the deadline (_last_look) is seen on the reply pipe alone
                death = self.exit_description()
                self._drain_remaining()
                raise _Dead(death)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._last_look()
                if not self.ready():
                    raise TimeoutError
                continue
            poller = select.poll()
            for fd, events in self.watched().items():
                poller.register(fd, events)
            for fd, events in poller.poll(remaining * 1000):
                self.take(fd, events)

    def _last_look(self) -> None:
        """Past the deadline, still take a reply already waiting in the pipe: an agent
        collected second must not pay for the first one's slowness. Bounded: junk past the
        allowance stops it."""
        while not self.ready() and self._read_replies():
            pass

    def _read_replies(self) -> bool:
        """Take one chunk of the reply pipe, if any is waiting; False when none was."""
        try:
            chunk = os.read(self.reply_fd, READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if not chunk:
            self.ended = True
            return False
        self.replies.feed(chunk, request_unsent=bool(self.outgoing))
        return True

    # -- for a runner that waits on many hosts at once --------------------------------------
    def ready(self) -> bool:
        """A reply, a violation or the end is here: read_line will not wait."""
        return self.replies.reply is not None or self.replies.broken is not None or self.ended

    def watched(self) -> dict[int, int]:
        """The fds to poll and for what: replies, stderr, and requests waiting to go."""
        if self.stderr_open and not self.outgoing:  # the usual case, once per wait: kept
            return self.usually_watched
        fds = {self.reply_fd: select.POLLIN}
        if self.stderr_open:
            fds[self.stderr_fd] = fds.get(self.stderr_fd, 0) | select.POLLIN
        if self.outgoing:
            fds[self.request_fd] = fds.get(self.request_fd, 0) | select.POLLOUT
        return fds

    def take(self, fd: int, events: int) -> None:
        """Act on what poll said about one of its fds."""
        if fd == self.request_fd and events & (select.POLLOUT | select.POLLERR):
            self._flush()
        if fd == self.stderr_fd:
            self._drain_stderr()
        elif fd == self.reply_fd and events & (select.POLLIN | select.POLLHUP | select.POLLERR):
            self._read_replies()

    def _drain_stderr(self):
        try:
            chunk = os.read(self.stderr_fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.stderr_open = False  # ended: not worth polling again
            return
        self.output.keep(chunk)

    def exit_description(self) -> str:
        try:
            code = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "closed its output"
        if code < 0:
            try:
                return f"process killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"process killed by signal {-code}"
        return f"process exited with status {code}"

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.kill()
        except ProcessLookupError:
            pass
        self.process.wait()
        self.on_end()
        self._drain_remaining()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def _drain_remaining(self):
        """What it printed before it died. Bounded: a child that left the process group
        may hold the pipe open and keep writing."""
        try:
            for _ in range(16):
                chunk = os.read(self.stderr_fd, READ_CHUNK)
                if not chunk:
                    return
                self.output.keep(chunk)
        except OSError:
            pass

    def quit(self) -> None:
        self.send("QUIT\n")
        try:
            self.process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
        self.kill()



class CapturedOutput:
    """What an agent printed, kept up to a cap for the instructor; the rest is counted. The
    last few KiB are kept apart, past the cap too: a dying process's last words (SBCL's
    fatal error, the zygote's protocol verdict) say why it died."""

    TAIL = 4096

    def __init__(self, cap: int = OUTPUT_CAP):
        self.cap = cap
        self.kept = bytearray()
        self.dropped = 0
        self.tail = b""

    def keep(self, chunk: bytes) -> None:
        room = self.cap - len(self.kept)
        self.kept += chunk[:max(0, room)]
        self.dropped += max(0, len(chunk) - max(0, room))
        self.tail = (self.tail + chunk[-self.TAIL:])[-self.TAIL:]

    def text(self) -> str:
        text = self.kept.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[... {self.dropped} more bytes not kept]"
        return text


def _as_is(argv, env):
    from ..sandbox import Launch

    return Launch(list(argv), env)


_MOVES = re.compile(r"MOVES ([CD]+)(?: WARN (.*))?")
_SBCL_FRAME = re.compile(r"\s*\d+: fp=0x")


class ProcessHandle:
    def __init__(self, name: str, argv: list[str], env: dict, timeout: float,
                 start_timeout: float = 30.0, wrap=None):
        self.name = name
        self.argv = argv
        self.env = env
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.wrap = wrap or _as_is  # (argv, env) -> harness.sandbox.Launch
        self.output = CapturedOutput()
        self.host: HostProcess | None = None
        self.start: GameStart | None = None
        self.turns: list[tuple[str, str]] = []
        self.out_for_game = False
        self.asked = False          # a request is out and its answer not collected yet
        self.deadline = 0.0
        self.restart_failed = False          # once: later games play the default silently
        self.unreported: Fault | None = None  # a fault to give at the next collect
        self.host = self._launch()

    # -- life cycle -------------------------------------------------------------------------
    def _launch(self, start_timeout: float | None = None) -> HostProcess:
        """A ready host, or LoadError with the agent's own reason."""
        start_timeout = start_timeout or self.start_timeout
        token = secrets.token_hex(8)
        env = dict(self.env, PDH_TOKEN=token, PDH_TIMEOUT=repr(self.timeout))
        launch = self.wrap(self.argv, env)  # may raise LoadError
        try:
            host = HostProcess(launch.argv, launch.env, token, self.output,
                               launch.popen_options())
        except OSError as error:
            launch.ended()
            if error.errno in (errno.EMFILE, errno.ENFILE):  # ours, not the agent's
                raise OutOfFiles(f"the monitor has no file descriptor left to start "
                                 f"{self.name}'s process ({error.strerror}): raise "
                                 "`ulimit -n`") from error
            raise LoadError(f"cannot start {launch.argv[0]}: {error.strerror}") from error
        except subprocess.SubprocessError as error:  # the limits could not be set
            launch.ended()
            raise LoadError(f"cannot start {launch.argv[0]}: {error}") from error
        finally:
            launch.close()
        host.cpu_budget = launch.cpu_seconds
        host.on_end = launch.ended
        try:
            line = host.read_line(time.monotonic() + start_timeout)
        except TimeoutError:
            host.kill()
            raise LoadError(f"did not finish loading within {start_timeout:g} s") from None
        except _Dead as death:
            host.kill()
            raise LoadError(f"{death} while loading{self._output_hint()}") from death
        except _Violation as violation:
            host.kill()
            raise LoadError(f"broke the host protocol while loading: {violation}") from violation
        if line.startswith("LOADERR "):
            host.kill()
            raise LoadError(line[len("LOADERR "):])
        if line != "READY":
            host.kill()
            raise LoadError(f"host answered {one_line(line, 80)!r} instead of READY")
        return host

    def _output_hint(self) -> str:
        lines = self.output.tail.decode("utf-8", "replace").strip().splitlines()
        # SBCL's fatal errors ("Heap exhausted, game over.") end in a backtrace of frames
        # like "  3: fp=0x... pc=0x... NAME": the line before them says what happened
        said = [line for line in lines if line.strip() and not _SBCL_FRAME.match(line)]
        return f": {one_line(said[-1], 200)}" if said else ""

    def _replace(self, played) -> bool:
        """A new process, brought up to date with the turns `played` so far in the game in
        progress; False if none starts. It gets less time to start than the first did: it
        loaded before, and every game waits while it starts (slow loaders must not stall a
        tournament for minutes)."""
        try:
            host = self.host = self._launch(min(self.start_timeout, max(3.0, 10 * self.timeout)))
        except LoadError as error:
            if not self.restart_failed:  # recorded, so its status says crashed, and why
                self.restart_failed = True
                self.unreported = Fault(CRASH, f"could not be restarted: {error}")
            self.host = None
            return False
        self._send_game()
        for mine, theirs in played:
            host.send(f"SYNC {mine} {theirs}\n")
        return True

    def _send_game(self) -> None:
        start, host = self.start, self.host
        assert start is not None and host is not None  # a game has started, on a live host
        t, r, p, s = start.payoffs.as_tuple()
        host.send(f"GAME {start.agent_seed} {start.moves_per_turn} {t} {r} {p} {s}\n")

    def _lose_host(self) -> None:
        if self.host is not None:
            self.host.kill()
            self.host = None

    # -- the handle -------------------------------------------------------------------------
    def start_game(self, start: GameStart) -> None:
        self.start = start
        self.turns = []
        self.out_for_game = False
        self.asked = False
        if self.host is not None and self.host.worn_out():
            self.host.quit()
            self.host = None
        if self.host is not None:
            self._send_game()
        elif not self._replace([]):  # the last game killed it; a fresh one starts this game
            self.out_for_game = True

    def request(self, last: Last) -> None:
        if last is not None:
            self.turns.append(last)
        if self.out_for_game:
            return
        # the TURN below carries the last turn: the new process is told the ones before it
        if self.host is None and not self._replace(self.turns[:-1] if last else []):
            self.out_for_game = True
            return
        assert self.host is not None  # it was there or _replace started one
        self.host.ask(f"TURN {last[0]} {last[1]}\n" if last is not None else "TURN\n")
        self.deadline = time.monotonic() + self.timeout
        self.asked = True

    # -- waiting on many handles at once (harness/runners.py) -------------------------------
    def waiting_on(self) -> dict[int, int]:
        host = self.host
        # not asked this turn: out for the game, or given up on by the game (rules.py)
        if not self.asked or host is None or host.ready():
            return {}
        if time.monotonic() >= self.deadline:
            return {}
        return host.watched()

    def pump(self, fd: int, events: int) -> None:
        if self.host is not None:
            self.host.take(fd, events)

    def collect(self) -> Reply:
        if self.out_for_game:
            fault, self.unreported = self.unreported, None
            return SILENT_DEFAULT if fault is None else Reply(None, fault)
        self.asked = False
        host = self.host
        assert host is not None  # request() asked it, or the handle is out for the game
        try:
            line = host.read_line(self.deadline)
        except TimeoutError:
            # a host that stopped reading its requests cannot answer them either
            what = "did not take its request" if host.outgoing else "no answer"
            self._lose_host()
            return Reply(None, Fault(TIMEOUT, f"{what} within {self.timeout:g} s; "
                                              "process killed and replaced"))
        except _Dead as death:
            reason = f"{death}{self._output_hint()}"
            self._lose_host()
            self.out_for_game = True
            return Reply(None, Fault(CRASH, reason))
        except _Violation as violation:
            self._lose_host()
            self.out_for_game = True
            return Reply(None, Fault(INVALID, f"protocol violation: {violation}; process "
                                              "killed, default answer for the rest of the game"))
        host.busy += time.monotonic() - (self.deadline - self.timeout)
        return self._parse(line)

    def _parse(self, line: str) -> Reply:
        assert self.start is not None  # replies come within a game
        per_turn = self.start.moves_per_turn
        if line.startswith("MOVES "):  # by far the most common reply: no regex for it
            moves = line[6:]
            if len(moves) == per_turn and not moves.strip("CD"):
                return plain_reply(moves)
        match = _MOVES.fullmatch(line)
        if match and len(match.group(1)) == per_turn:
            return Reply(match.group(1), None, match.group(2))
        if line.startswith("TIMEOUT "):  # the host stopped the call itself (SBCL does)
            return Reply(None, Fault(TIMEOUT, one_line(line[len("TIMEOUT "):])))
        if line.startswith("ERROR "):
            return Reply(None, Fault(EXCEPTION, one_line(line[len("ERROR "):])))
        if line.startswith("INVALID "):
            return Reply(None, Fault(INVALID, one_line(line[len("INVALID "):])))
        return Reply(None, Fault(INVALID, f"unreadable reply {one_line(line, 80)!r}"))

    def end_game(self) -> None:
        """The host kills this game's agent process and all it started (docs/DESIGN.md)."""
        self.turns = []
        if self.host is not None:
            self.host.send("END\n")

    def close(self) -> None:
        if self.host is not None:
            self.host.quit()
            self.host = None

    def fork_child(self) -> bool:
        """Forget the host without touching its process, which belongs to the process that
        forked this one: a forked worker (harness/runners.py) must open hosts of its own."""
        if self.host is not None:
            for stream in (self.host.process.stdin, self.host.process.stdout,
                           self.host.process.stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            self.host = None
        return False

    def captured_output(self) -> str:
        return self.output.text()
