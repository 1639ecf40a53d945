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
import secrets
import select
import signal
import subprocess
import time
from collections import deque

from harness.agents.runtime import one_line
from harness.core import protocol
from harness.core.errors import LoadError, OutOfFiles
from harness.core.fault_policy import FAULT_POLICY, Event

from .agent_handle import SILENT_DEFAULT, Fault, GameStart, Last, Reply, plain_reply
from .replies import ReplyReader

OUTPUT_CAP = 64 * 1024
READ_CHUNK = 65536


def load_too_long(took: float, limit: float, stopped: bool = True) -> str:
    """The load error of an agent whose load took longer than --load-timeout: `stopped`
    at the limit (a host's), or let finish (the monitor's own, `--isolation none`)."""
    taken = f"stopped after {took:.1f} s" if stopped else f"it took {took:.1f} s"
    return (f"did not load within the {limit:g} s allowed (--load-timeout): {taken}; "
            "import less, or compute less at the top of the file")


class _Dead(Exception):
    """The host process ended, or its game's process died."""


class _GameDied(_Dead):
    """The game's process died; the host lives on (its zygote said DIED)."""


class _Violation(Exception):
    """The host's process broke the protocol (agent code writing on it): it is killed."""


def describe_status(status: int) -> str:
    """A wait(2) status in words: how a process ended."""
    if os.WIFSIGNALED(status):
        return _killed_by(os.WTERMSIG(status))
    return f"process exited with status {os.WEXITSTATUS(status)}"


def _killed_by(number: int) -> str:
    try:
        return f"process killed by {signal.Signals(number).name}"
    except ValueError:
        return f"process killed by signal {number}"


def _read_now(fd: int) -> bytes | None:
    """A chunk of what waits on non-blocking `fd`: None when nothing does, b"" at its end
    (or when it cannot be read: the process is gone)."""
    try:
        return os.read(fd, READ_CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class GameChannel:
    """The game channel's two pipes: the host's ends (passed down, named in PDH_GAME_FDS)
    and the monitor's. Made before the host's command line, which may carry its
    environment (the sandbox's does)."""

    def __init__(self):
        game_requests, request_fd = os.pipe()
        reply_fd, game_replies = os.pipe()
        self.ours = (request_fd, reply_fd)
        self.theirs = (game_requests, game_replies)
        self.env = {"PDH_GAME_FDS": f"{game_requests},{game_replies}"}

    def close_theirs(self) -> None:
        for fd in self.theirs:
            os.close(fd)

    def close_ours(self) -> None:
        for fd in self.ours:
            os.close(fd)


class HostProcess:
    """A running host, on two channels (docs/DESIGN.md, "The host protocol"):

    - the control channel, its stdin and stdout, to the zygote, which runs no agent code:
      READY or LOADERR at the start, END -> ENDED between games, QUIT; and DIED when a
      game's process dies unbidden;
    - the game channel, a pipe pair passed down (PDH_GAME_FDS), which the game's own
      process reads and answers: GAME, TURN, SYNC, and one marked reply per TURN.
    The zygote kills a game's processes at END and says ENDED once they are all dead;
    what the monitor writes for the next game is held until then, so no process of the
    last game ever reads it, and whatever the last game's process wrote is dropped then.

    Every descriptor is non-blocking on the monitor's side. A request the host does not
    take at once waits here (`outgoing`) and is written as the pipe drains, within the
    call's deadline. Replies are read a chunk at a time by a ReplyReader, which holds the
    game's process to one reply per request (harness/isolation/handles/replies.py).
    """

    def __init__(self, argv, env, token, output, popen_options=None, end_allowance=3.0,
                 game: GameChannel | None = None, cpu_counter: str | None = None):
        self.output = output
        from ..sandbox import popen  # from a thread that outlives this one: see there

        game = game or GameChannel()
        self.request_fd, self.reply_fd = game.ours
        options = dict(popen_options or {})
        options["pass_fds"] = (*options.get("pass_fds", ()), *game.theirs)
        try:
            self.process = popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=dict(env, **game.env), start_new_session=True, close_fds=True, **options)
        except BaseException:
            game.close_ours()
            raise
        finally:
            game.close_theirs()
        stdin, stdout, stderr = self.process.stdin, self.process.stdout, self.process.stderr
        assert stdin is not None and stdout is not None and stderr is not None  # all PIPE
        self.control_fd = stdin.fileno()
        self.answers_fd = stdout.fileno()
        self.stderr_fd = stderr.fileno()
        for fd in (self.request_fd, self.reply_fd, self.control_fd, self.answers_fd,
                   self.stderr_fd):
            os.set_blocking(fd, False)   # the monitor's ends only: the host's stay as they are
        self.outgoing = bytearray()      # game request bytes the host has not taken yet
        self.held = bytearray()          # the next game's requests, until ENDED
        self.token = token.encode("ascii") + b" "
        self.replies = ReplyReader(self.token)
        self.replies.expecting = False   # the game's process speaks only when asked
        self.from_zygote = bytearray()   # the start of its line not yet ended
        self.zygote_broken: str | None = None
        self.said: deque[str] = deque()  # the zygote's lines, not taken yet
        self.ended = False               # its pipes reached end of file: the host is gone
        self.stderr_open = True
        self.end_allowance = end_allowance
        self.ending = False              # END sent, ENDED not received yet
        self.end_deadline = 0.0
        self.released_at = 0.0           # when the held requests went out (ENDED came)
        self.serial = 1                  # the game the next GAME starts (counted by both)
        self.in_game = False             # a GAME went out, its END did not
        self.died: str | None = None     # how the game's process died (the zygote said)
        self.usually_watched = {self.reply_fd: select.POLLIN, self.answers_fd: select.POLLIN,
                                self.stderr_fd: select.POLLIN}
        self.make_polls()
        self.busy = 0.0            # seconds spent answering calls: a bound on its CPU time
        self.cpu_budget = None     # its CPU time limit (seconds), if any
        self.on_end = lambda: None  # once it is dead: what its launch set up goes (cgroup)
        from ..own_time import CallClock

        self.clock = CallClock(self.process.pid, cpu_counter)   # each call's own time

    def make_polls(self) -> None:
        """Poll sets made once: whether anything waits on the reply pipe (a poll, not a
        read, which would raise and cost an exception when nothing does, as before nearly
        every request), and `usually_watched`'s, for read_line's waits."""
        self.reply_waiting = select.poll()
        self.reply_waiting.register(self.reply_fd, select.POLLIN)
        self.usual_poll = select.poll()
        for fd, events in self.usually_watched.items():
            self.usual_poll.register(fd, events)

    def worn_out(self) -> bool:
        """Near its CPU time limit from honest work: retire it between games rather than
        have the limit kill it mid-game (a background thread burning CPU between calls
        is not counted here, and meets the limit)."""
        return self.cpu_budget is not None and self.busy > self.cpu_budget / 2

    def call_started(self) -> None:
        """A call's request goes out now: its own time is measured from here."""
        self.clock.start(self.serial)

    def at_deadline(self) -> tuple[float, int | None]:
        """As a call's deadline passes: the seconds of it given back (its agent waited for
        a CPU that others held), and its game's process's wait status if that died
        (harness/isolation/own_time.py)."""
        return self.clock.at_deadline()

    # -- the control channel ----------------------------------------------------------------
    def first_words(self, deadline: float) -> str:
        """READY or LOADERR ...: the zygote's first line; TimeoutError, _Dead, _Violation."""
        while not self.said:
            self._check_zygote()
            if self.ended:
                raise _Dead(self.exit_description())
            if not self._wait(deadline):
                self._read_zygote()   # a last look at what is already there
                if not (self.said or self.ended):
                    self._check_zygote()
                    raise TimeoutError
        return self.said.popleft()

    def end_game(self) -> None:
        """The game is over: the zygote ends its processes; the next GAME waits for ENDED.
        What its process did not take of the requests is dropped (a line cut short in the
        pipe ends at the newline the next GAME starts with)."""
        if not self.in_game:
            return
        self.in_game = False
        self.outgoing.clear()
        self.serial += 1
        self.ending = True
        self.end_deadline = time.monotonic() + self.end_allowance
        self._tell_zygote(protocol.END.line().encode("ascii"))

    def _tell_zygote(self, line: bytes) -> None:
        """A few bytes to a process that reads nothing else: they fit in the pipe, or the
        zygote has stopped reading and counts as dead."""
        try:
            os.write(self.control_fd, line)
        except OSError:  # full (BlockingIOError) or closed: it is not listening
            self.ended = True

    def _check_zygote(self) -> None:
        if self.zygote_broken is not None:
            raise _Violation(self.zygote_broken)

    def _read_zygote(self) -> None:
        chunk = _read_now(self.answers_fd)
        if chunk is None:
            return
        if not chunk:
            self.ended = True
            return
        # the zygote runs no agent code: every line there is its own, marked, and short
        self.from_zygote += chunk
        *lines, rest = self.from_zygote.split(b"\n")
        self.from_zygote = bytearray(rest)
        for line in lines:
            if not line.startswith(self.token) or len(line) > protocol.LINE_LIMIT:
                self.zygote_broken = "a line that is not the zygote's on its control pipe"
                return
            self._heard(line[len(self.token):].decode("utf-8", "replace"))
        if len(rest) > protocol.LINE_LIMIT:
            self.zygote_broken = f"a line over {protocol.LINE_LIMIT} bytes on its control pipe"

    def _heard(self, line: str) -> None:
        verb, values = protocol.parse(line, protocol.MONITOR_READS_CONTROL)
        if verb is protocol.ENDED and self.ending:
            self._last_game_ended()
        elif verb is protocol.DIED:
            if not self.ending:     # a death before ENDED was the last game's: ENDED says it
                self.died = describe_status(values[0])
        else:
            self.said.append(line)

    def _last_game_ended(self) -> None:
        """Every process of the last game is dead: what they wrote is dropped (a bounded
        read: nothing writes there now), and the held requests go out."""
        self.ending = False
        for _ in range(64):
            try:
                if not os.read(self.reply_fd, READ_CHUNK):
                    break
            except OSError:   # BlockingIOError: empty
                break
        asked = self.replies.expecting   # a request held until now awaits its reply
        self.replies = ReplyReader(self.token)
        self.replies.expecting = asked
        self.died = None
        if asked:
            self.call_started()
        self.outgoing += self.held
        self.held.clear()
        self.released_at = time.monotonic()
        self._flush()

    # -- requests ---------------------------------------------------------------------------
    def start_game(self, values: tuple[int, ...], answered: bool = False) -> None:
        """GAME <serial> <values>: held while the last game is ending. `answered`: the
        game's process says LOADED once its agent has loaded (a built-in's host does not)."""
        if self.in_game:   # a game not ended: it ends first
            self.end_game()
        self.in_game = True
        line = "\n" + protocol.GAME.line(self.serial, *values)
        if answered:
            self.ask(line)
        else:
            self.send(line)

    def send(self, text: str) -> None:
        """Queue a message that has no reply (GAME, SYNC) and write what fits now."""
        data = text.encode("ascii")
        if self.ending:
            self.held += data
        elif self.outgoing:   # behind what the host has not taken yet
            self.outgoing += data
            self._flush()
        else:   # as a rule: one write, all of it taken
            try:
                written = os.write(self.request_fd, data)
            except BlockingIOError:
                written = 0   # the host is not reading: it waits, within the deadline
            except OSError:   # broken pipe: the process is gone; the read will say so
                return
            if written < len(data):
                self.outgoing += data[written:]

    def ask(self, text: str) -> None:
        """Send a request that has exactly one reply. Whatever marked line came before it
        was sent answers nothing: reading the pipe first catches it (while the last game
        ends, what is there is its own, dropped at ENDED)."""
        self.read_waiting()
        self.replies.expect()
        if not self.ending:   # else it goes out when the last game has ended
            self.call_started()
        self.send(text)

    def read_waiting(self) -> None:
        """Take what the reply pipe holds now, without waiting (bounded: the junk
        allowance stops a flood); nothing while the last game ends."""
        while (not (self.replies.broken or self.ended or self.ending)
               and self.reply_waiting.poll(0) and self._read_replies()):
            pass

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
    def read_line(self, deadline: float, timeout: float = 0.0) -> str:
        """The reply to the last request, or TimeoutError, _Violation or _Dead. While the
        last game is ending, its end's own allowance applies; a request held until then
        has `timeout` from when it went out, if that is later than `deadline`."""
        while True:
            self._check_zygote()
            if not self.ending:   # what came before ENDED was the last game's
                if self.replies.broken is not None:
                    raise _Violation(self.replies.broken)
                reply = self.replies.take()
                if reply is not None:
                    return reply
                if self.died is not None:
                    reply = self._written_before_death()
                    if reply is not None:
                        return reply
                    raise _GameDied(self.died)
            if self.ended:
                # its last words may still wait unread: an end seen past the deadline
                # (_last_look) is seen on the reply pipe alone
                death = self.exit_description()
                self._drain_remaining()
                raise _Dead(death)
            ending = self.ending
            limit = self.end_deadline if ending else max(deadline, self.released_at + timeout)
            if self._wait(limit):
                continue
            # past the limit, a last look at what is already waiting (the monitor may have
            # been busy elsewhere): ENDED releases the request, which then has its time
            self._last_look()
            if ending and self.ending:
                raise _Dead(f"its last game's processes did not end within "
                            f"{self.end_allowance:g} s")
            if not ending and not self.ready():
                raise TimeoutError

    def _written_before_death(self) -> str | None:
        """A reply its game's process wrote before it died, still in the pipe: that is its
        answer (the zygote's DIED, read first, may have overtaken it). Bounded: the junk
        allowance stops a flood."""
        while (self.replies.reply is None and self.replies.broken is None
               and self._read_replies()):
            pass
        if self.replies.broken is not None:
            raise _Violation(self.replies.broken)
        return self.replies.take()

    def _wait(self, deadline: float) -> bool:
        """Wait for any of its pipes, at most until `deadline`; False if it passed."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        watched = self.watched()
        poller = self.usual_poll
        if watched is not self.usually_watched:   # unusual: a poll set for this wait
            poller = select.poll()
            for fd, events in watched.items():
                poller.register(fd, events)
        for fd, events in poller.poll(remaining * 1000):
            self.take(fd, events)
        return True

    def _last_look(self) -> None:
        """Past the deadline, still take a reply already waiting in the pipe: an agent
        collected second must not pay for the first one's slowness. Bounded: junk past the
        allowance stops it."""
        if self.answers_fd >= 0:
            self._read_zygote()
        while not self.ready() and self._read_replies():
            pass

    def _read_replies(self) -> bool:
        """Take one chunk of the reply pipe, if any is waiting; False when none was."""
        try:
            chunk = os.read(self.reply_fd, READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:   # it cannot be read: the process is gone
            chunk = b""
        if not chunk:
            self.ended = True
            return False
        if not self.ending:   # while it ends, what the last game's process wrote is dropped
            self.replies.feed(chunk, request_unsent=bool(self.outgoing))
        return True

    # -- for a runner that waits on many hosts at once --------------------------------------
    def ready(self) -> bool:
        """A reply, a violation or the end is here: read_line will not wait."""
        if self.ended or self.zygote_broken is not None:
            return True
        if self.ending:
            return time.monotonic() >= self.end_deadline
        return (self.replies.reply is not None or self.replies.broken is not None
                or self.died is not None)

    def watched(self) -> dict[int, int]:
        """The fds to poll and for what: replies, the zygote, stderr, requests to go."""
        if self.stderr_open and not self.outgoing:  # the usual case, once per wait: kept
            return self.usually_watched
        fds = {self.reply_fd: select.POLLIN}
        if self.answers_fd >= 0:
            fds[self.answers_fd] = select.POLLIN
        if self.stderr_open:
            fds[self.stderr_fd] = select.POLLIN
        if self.outgoing:
            fds[self.request_fd] = select.POLLOUT
        return fds

    def take(self, fd: int, events: int) -> None:
        """Act on what poll said about one of its fds (a reply, as a rule: tried first)."""
        if fd == self.reply_fd:
            if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                self._read_replies()
        elif fd == self.request_fd:
            if events & (select.POLLOUT | select.POLLERR):
                self._flush()
        elif fd == self.stderr_fd:
            self._drain_stderr()
        elif fd == self.answers_fd:
            self._read_zygote()

    def _drain_stderr(self) -> bool:
        """Take one chunk of its stderr, if any is waiting; False when none was."""
        chunk = _read_now(self.stderr_fd)
        if chunk is None:
            return False
        if not chunk:
            self.stderr_open = False  # ended: not worth polling again
            return False
        self.output.keep(chunk)
        return True

    def exit_description(self) -> str:
        try:
            code = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "closed its output"
        if code < 0:
            return _killed_by(-code)
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
        self.close_pipes()

    def close_pipes(self) -> None:
        self.clock.close()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        for fd in (self.request_fd, self.reply_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    def drain_output(self) -> None:
        """What is waiting on its stderr now, a bounded amount (a dead game's last words)."""
        for _ in range(16):
            if not (self.stderr_open and self._drain_stderr()):
                return

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
        self._tell_zygote(protocol.QUIT.line().encode("ascii"))
        try:
            self.process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
        self.kill()


class CapturedOutput:
    """What an agent printed, kept up to a cap for the instructor; the rest is counted. The
    last few KiB are kept apart, past the cap too: a dying process's last words (a runtime's
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


def _last_line(output: str) -> str | None:
    from harness.agents.lang.language import last_line

    return last_line(output)


def _as_written(message: str) -> str:
    return message


def _as_is(argv, env):
    from ..sandbox import Launch

    return Launch(list(argv), env)


_MOVES_ALONE = protocol.MOVES.word + " "   # the start of the reply of nearly every call
_PLAIN_LINES: dict[str, Reply] = {}   # "MOVES CCD" -> its reply, for the first lines seen
_PLAIN_LINES_KEPT = 1024   # 3 moves a turn: 8 lines; long turns: bounded all the same
_FIRST_TURN = protocol.TURN.line()
_LOADED_WORD = protocol.LOADED.line().rstrip("\n")
_TURN = protocol.TURN.line("%s", "%s")   # TURN's line with the last turn: a template
_EVENT_OF = {protocol.TIMEOUT: Event.STOPPED,   # the REPL stopped the call itself
             protocol.ERROR: Event.RAISED, protocol.INVALID: Event.BAD_ANSWER}


class ProcessHandle:
    # a game's load (see __init__): class defaults, for a handle made without __init__
    load_timeout: float | None = None
    loading = False
    loading_until = 0.0
    held_turn: str | None = None

    def __init__(self, name: str, argv: list[str], env: dict, timeout: float,
                 start_timeout: float = 30.0, wrap=None, last_words=None,
                 load_timeout: float | None = None, shown=None):
        self.name = name
        self.argv = argv
        self.env = env
        self.timeout = timeout
        self.start_timeout = start_timeout   # the host's own start, up to LOADING
        # the agent's load: LOADING to READY at the start, GAME to LOADED in every game
        # (None: a host that loads nothing, a built-in's, whose GAME has no answer)
        self.load_timeout = load_timeout
        self.loading = False        # GAME sent, LOADED not come: the first TURN waits
        self.loading_until = 0.0    # when the load is due, from when GAME went out
        self.held_turn: str | None = None   # the first TURN, sent once LOADED comes
        self.wrap = wrap or _as_is  # (argv, env) -> harness.isolation.sandbox.Launch
        # output -> why the host died: its language reads its own runtime's crash output
        self.last_words = last_words or _last_line
        # a host's message -> as recorded: a bundle's random snapshot named as it was given
        self.shown = shown or _as_written
        self.output = CapturedOutput()
        self.host: HostProcess | None = None
        self.start: GameStart | None = None
        self.turns: list[tuple[str, str]] = []
        self.out_for_game = False
        self.asked = False          # a request is out and its answer not collected yet
        self.stale = False          # the game's process was killed: a fresh one catches up
        self.asked_until = 0.0      # the last request's deadline, from when it was asked
        self.credit = 0.0           # time given back to it: its process waited for a CPU
        self.restart_failed = False          # once: later games play the default silently
        self.unreported: Fault | None = None  # a fault to give at the next collect
        self.host = self._launch()

    # -- life cycle -------------------------------------------------------------------------
    def _launch(self, start_timeout: float | None = None) -> HostProcess:
        """A ready host, or LoadError with the agent's own reason."""
        start_timeout = start_timeout or self.start_timeout
        token = secrets.token_hex(8)
        game = GameChannel()
        env = dict(self.env, PDH_TOKEN=token, **game.env)
        if self.load_timeout is not None:   # its games' processes say LOADED (_loaded)
            env[protocol.ANSWER_GAME] = "1"
        try:
            launch = self.wrap(self.argv, env)
        except BaseException:  # LoadError, as a rule
            game.close_ours()
            game.close_theirs()
            raise
        try:
            host = HostProcess(launch.argv, launch.env, token, self.output,
                               launch.popen_options(), self._end_allowance(), game,
                               launch.cpu_counter)
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
            line = host.first_words(time.monotonic() + start_timeout)
            if protocol.parse(line, protocol.MONITOR_READS_CONTROL)[0] is protocol.LOADING:
                line = self._after_loading(host)
        except TimeoutError:
            host.kill()
            raise LoadError(f"did not finish loading within {start_timeout:g} s") from None
        except _Dead as death:
            host.kill()
            raise LoadError(f"{death} while loading{self._output_hint()}") from death
        except _Violation as violation:
            host.kill()
            raise LoadError(f"broke the host protocol while loading: {violation}") from violation
        verb, values = protocol.parse(line, protocol.MONITOR_READS_CONTROL)
        if verb is protocol.LOADERR:
            host.kill()
            raise LoadError(values[0])
        if verb is not protocol.READY:
            host.kill()
            raise LoadError(f"host answered {one_line(line, 80)!r} instead of READY")
        return host

    def _after_loading(self, host: HostProcess) -> str:
        """The zygote's word after LOADING (READY or LOADERR), within the load's own time
        limit; LoadError, saying how long it took, past it."""
        began = time.monotonic()
        limit = self.load_timeout or self.start_timeout
        try:
            return host.first_words(began + limit)
        except TimeoutError:
            host.kill()
            raise LoadError(load_too_long(time.monotonic() - began, limit)) from None

    def _output_hint(self) -> str:
        said = self.last_words(self.output.tail.decode("utf-8", "replace"))
        return f": {one_line(said, 200)}" if said else ""

    def _end_allowance(self) -> float:
        """How long a game's end may take (its processes killed): what a restart may."""
        return min(self.start_timeout, max(3.0, 10 * self.timeout))

    @property
    def deadline(self) -> float:
        """When the answer to the last request is due: a request held while the last game
        ended has its full time from when it went out."""
        host = self.host
        if host is None:
            return self.asked_until
        if host.ending:
            return host.end_deadline
        if self.loading:
            return max(self.loading_until, host.released_at + self._limit()) + self.credit
        return max(self.asked_until, host.released_at + self.timeout) + self.credit

    def _limit(self) -> float:
        """The time the awaited answer has: its load's, or its call's."""
        return self.load_timeout if self.loading and self.load_timeout else self.timeout

    def _time_given_back(self) -> bool:
        """Its deadline has passed: move it on by the time the game's process waited for
        a CPU (harness/isolation/own_time.py); True if the call still has time then, or if
        the process is found dead (the reply is then that death, whenever the zygote,
        which may wait for a CPU too, gets to report it)."""
        host = self.host
        if host is None or host.ending or host.ended:
            return False
        from ..own_time import OWN_TIME_CAP

        waited, status = host.at_deadline()
        if status is not None:   # read_line still takes a reply written before it died
            host.died = host.died or describe_status(status)
            return True
        waited = min(waited, (OWN_TIME_CAP - 1) * self._limit())
        if waited <= self.credit:
            return False
        self.credit = waited
        return time.monotonic() < self.deadline

    def _replace(self, played) -> bool:
        """A new process, brought up to date with the turns `played` so far in the game in
        progress; False if none starts. It gets less time to start than the first did: it
        loaded before, and every game waits while it starts (slow loaders must not stall a
        tournament for minutes)."""
        try:
            self.host = self._launch(self._end_allowance())
        except LoadError as error:
            if not self.restart_failed:  # recorded, so its status says crashed, and why
                self.restart_failed = True
                self.unreported = Fault(FAULT_POLICY.kind(Event.NOT_RESTARTED),
                                        f"could not be restarted: {error}")
            self.host = None
            return False
        self._catch_up(played)
        return True

    def _catch_up(self, played) -> None:
        """A fresh game's process on the host, told the game so far."""
        self.stale = False
        self._send_game()
        assert self.host is not None
        for mine, theirs in played:
            self.host.send(protocol.SYNC.line(mine, theirs))

    def _end_its_process(self) -> None:
        """The game's process (and all it started) is killed; a fresh one, from the same
        host, takes over at the next request: no new host to start and load."""
        assert self.host is not None
        self.host.end_game()
        self.stale = True
        self.loading, self.held_turn = False, None

    def _send_game(self) -> None:
        start, host = self.start, self.host
        assert start is not None and host is not None  # a game has started, on a live host
        limit = self.load_timeout
        host.start_game((start.agent_seed, start.moves_per_turn, *start.payoffs.as_tuple()),
                        answered=limit is not None)
        if limit is not None:   # the first TURN waits for LOADED: the load has its own limit
            self.loading = True
            self.loading_until = time.monotonic() + limit
            self.held_turn = None
            self.credit = 0.0

    def _loaded(self, host: HostProcess, line: str) -> None:
        """LOADED came: the held first TURN goes out, with the call's own time from now.
        Any other reply to GAME breaks the protocol."""
        if line != _LOADED_WORD:
            raise _Violation(f"{one_line(line, 60)!r} where LOADED answers GAME")
        self.loading = False
        turn, self.held_turn = self.held_turn, None
        if turn is not None:
            host.ask(turn)
            self.asked_until = time.monotonic() + self.timeout
            self.credit = 0.0

    def _lose_host(self) -> None:
        self.loading, self.held_turn = False, None
        if self.host is not None:
            self.host.kill()
            self.host = None

    # -- the handle -------------------------------------------------------------------------
    def start_game(self, start: GameStart) -> None:
        self.start = start
        self.turns = []
        self.out_for_game = False
        self.asked = False
        self.stale = False
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
        if self.stale:
            self._catch_up(self.turns[:-1] if last else [])
        assert self.host is not None  # it was there or _replace started one
        turn = _TURN % last if last is not None else _FIRST_TURN
        self.asked = True
        if self.loading:   # sent once the fresh agent has loaded (_loaded)
            self.held_turn = turn
            self._pick_up_loaded(self.host)   # at once, if it has loaded already
            return
        self.host.ask(turn)
        self.asked_until = time.monotonic() + self.timeout
        self.credit = 0.0

    # -- waiting on many handles at once (harness/engine/runners.py) -------------------------------
    def waiting_on(self) -> dict[int, int]:
        host = self.host
        # not asked this turn: out for the game, or given up on by the game (rules.py)
        if not self.asked or host is None:
            return {}
        if self.loading:   # its first TURN goes out as soon as LOADED is here
            self._pick_up_loaded(host)
        if host.ready():
            return {}
        if time.monotonic() >= self.deadline:
            if not self._time_given_back():
                return {}
            if host.ready():   # found dead at the deadline
                return {}
        return host.watched()

    def pump(self, fd: int, events: int) -> None:
        host = self.host
        if host is not None:
            host.take(fd, events)
            if self.loading:
                self._pick_up_loaded(host, read=False)

    def _pick_up_loaded(self, host: HostProcess, read: bool = True) -> None:
        """While the first TURN waits: a LOADED already come (`read`: in the pipe, too)
        sends it now. A broken protocol is left for collect to say."""
        if read:
            host.read_waiting()
        if host.replies.reply is not None and not host.ending:
            try:
                self._loaded(host, host.replies.take() or "")
            except _Violation as violation:
                host.replies.broken = str(violation)

    def collect(self) -> Reply:
        if self.out_for_game:
            fault, self.unreported = self.unreported, None
            return SILENT_DEFAULT if fault is None else Reply(None, fault)
        self.asked = False
        host = self.host
        assert host is not None  # request() asked it, or the handle is out for the game
        replies = host.replies
        line = replies.reply
        if (line is not None and replies.broken is None and host.zygote_broken is None
                and not host.ending and not self.loading):   # the answer is here
            replies.reply = None
            return self._answered(host, line)
        return self._slow_collect(host)

    def _slow_collect(self, host: HostProcess) -> Reply:
        """collect(), when the answer is not simply there: wait for it, or the fault."""
        try:
            line = self._reply(host)
        except TimeoutError:
            # a host that stopped reading its requests cannot answer them either
            what = "did not take its request" if host.outgoing else "no answer"
            if self.loading:
                what = "did not load"
            allowed = self._time_allowed()
            if host.ending:   # its zygote did not end the last game in time: all of it goes
                self._lose_host()
            else:
                self._end_its_process()
            return self._fault(Event.NO_ANSWER, f"{what} within {allowed}; "
                                                "process killed and replaced")
        except _GameDied as death:   # the host lives on: the next game forks from it
            host.drain_output()   # its last words, which say why
            return self._fault(Event.DIED, f"{death}{self._output_hint()}")
        except _Dead as death:
            reason = f"{death}{self._output_hint()}"
            self._lose_host()
            return self._fault(Event.DIED, reason)
        except _Violation as violation:
            if host.zygote_broken is None:   # the game's process broke it: it alone goes
                self._end_its_process()
            else:
                self._lose_host()
            return self._fault(Event.BROKE_PROTOCOL, f"protocol violation: {violation}; "
                                                     "process killed, default answer for "
                                                     "the rest of the game")
        return self._answered(host, line)

    def _answered(self, host: HostProcess, line: str) -> Reply:
        # the time since the request went out counts towards its host's CPU time limit
        host.busy += time.monotonic() - max(self.asked_until - self.timeout, host.released_at)
        return self._parse(line)

    def _fault(self, event: Event, message: str) -> Reply:
        """The reply a fault makes, with what the policy says it does to the game (the
        process itself was dealt with where the fault was found: which one failed decides)."""
        consequence = FAULT_POLICY.consequence(event)
        if consequence.out_for_game:
            self.out_for_game = True
        return Reply(None, Fault(consequence.kind, message))

    def _time_allowed(self) -> str:
        limit = self._limit()
        named = " (--load-timeout)" if self.loading else ""
        if self.credit < 0.01:
            return f"{limit:g} s{named}"
        return (f"{limit:g} s{named} of its own ({limit + self.credit:.2f} s in all, "
                "waiting for a busy CPU included)")

    def _reply(self, host: HostProcess) -> str:
        """The reply to the last request, within the call's own time (after the fresh
        agent's LOADED, within the load's)."""
        while True:
            try:
                if self.loading:
                    self._loaded(host, host.read_line(self.loading_until + self.credit,
                                                      self._limit() + self.credit))
                    continue
                return host.read_line(self.asked_until + self.credit,
                                      self.timeout + self.credit)
            except TimeoutError:
                if not self._time_given_back():
                    raise

    def _parse(self, line: str) -> Reply:
        assert self.start is not None  # replies come within a game
        per_turn = self.start.moves_per_turn
        known = _PLAIN_LINES.get(line)   # by far the most common replies: one look-up
        if known is not None and len(line) - len(_MOVES_ALONE) == per_turn:
            return known
        if line.startswith(_MOVES_ALONE):  # the plain reply, read here at once
            moves = line[len(_MOVES_ALONE):]
            if len(moves) == per_turn and not moves.strip("CD"):
                reply = plain_reply(moves)
                if len(_PLAIN_LINES) < _PLAIN_LINES_KEPT:
                    _PLAIN_LINES[line] = reply
                return reply
        verb, values = protocol.parse(line, protocol.MONITOR_READS_GAME)
        if verb is protocol.MOVES and len(values[0]) == per_turn:
            return Reply(values[0], None, values[1] if len(values) == 2 else None)
        if verb in _EVENT_OF:
            return Reply(None, Fault(FAULT_POLICY.kind(_EVENT_OF[verb]),
                                     one_line(self.shown(values[0]))))
        return Reply(None, Fault(FAULT_POLICY.kind(Event.BAD_ANSWER), f"unreadable reply {one_line(line, 80)!r}"))

    def end_game(self) -> None:
        """The host kills this game's agent process and all it started (docs/DESIGN.md)."""
        self.turns = []
        self.loading, self.held_turn = False, None
        if self.host is not None:
            self.host.end_game()

    def close(self) -> None:
        if self.host is not None:
            self.host.quit()
            self.host = None

    def fork_child(self) -> bool:
        """Forget the host without touching its process, which belongs to the process that
        forked this one: a forked worker (harness/engine/runners.py) must open hosts of its own."""
        if self.host is not None:
            self.host.close_pipes()
            self.host = None
        return False

    def captured_output(self) -> str:
        return self.output.text()
