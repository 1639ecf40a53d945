"""The pipes of one host process and their one owner (docs/DESIGN.md, "Host line
protocol"). A handle (handles/process.py) asks it to send and to wait, and reads one narrow
outcome: a reply line (`read_line`, `answer_now`) or a typed failure (handles/host_channels.py)
saying which process failed. Deadlines, restarts and faults are the handle's."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections import deque

from harness.core import protocol

from ..descriptors import CLOSED, close_held
from ..own_time import CallClock
from ..spawner import popen
from .captured_output import CapturedOutput
from .host_channels import (
    READ_CHUNK,
    GameChannel,
    GameDied,
    HostGone,
    NoAnswer,
    Violation,
    describe_status,
    killed_by,
    read_now,
)
from .replies import ControlReader, ReplyReader


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

    def __init__(self, argv, env, token, output: CapturedOutput, popen_options=None,
                 end_allowance=3.0, game: GameChannel | None = None,
                 cpu_counter: str | None = None, cpu_budget: float | None = None,
                 on_end=lambda: None):
        self.output = output
        game = game or GameChannel()
        self.request_fd, self.reply_fd = game.ours
        options = dict(popen_options or {})
        options["pass_fds"] = (*options.get("pass_fds", ()), *game.theirs)
        try:
            self.process = popen(   # from a thread that outlives this one: see there
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
        self.control = ControlReader(self.token)   # the zygote's lines
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
        self.cpu_budget = cpu_budget   # its CPU time limit (seconds), if any
        self.on_end = on_end       # once it is dead: what its launch set up goes (cgroup)
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

    # -- the outcome a handle reads -------------------------------------------------------
    def answer_now(self) -> str | None:
        """The reply to the last request if it is simply here (no violation, no game
        ending), taken; None when collect must wait or find the fault (read_line)."""
        replies = self.replies
        if (replies.reply is None or replies.broken is not None
                or self.control.broken is not None or self.ending):
            return None
        return replies.take()

    def due(self, asked_until: float, limit: float) -> float:
        """When the awaited reply is due: the last game's end's allowance while it ends;
        else the request's own deadline, or `limit` from when a request held until ENDED
        went out, whichever is later."""
        if self.ending:
            return self.end_deadline
        return max(asked_until, self.released_at + limit)

    def answered(self, asked_at: float) -> None:
        """A reply came: the time since its request went out counts towards the host's
        CPU time limit (`worn_out`)."""
        self.busy += time.monotonic() - max(asked_at, self.released_at)

    def in_call(self) -> bool:
        """A call is out to a live game's process (not ending, not gone): its deadline may
        be moved on by the time it waited for a CPU."""
        return not (self.ending or self.ended)

    def found_dead(self, status: int) -> None:
        """Its game's process was found dead at a deadline (before the zygote said so)."""
        self.died = self.died or describe_status(status)

    def broke_protocol(self, why: str) -> None:
        """The handle found a reply that breaks the protocol: the next read says so."""
        self.replies.broken = why

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
        """READY or LOADERR ...: the zygote's first line; TimeoutError, HostGone, Violation."""
        while not self.said:
            self._check_zygote()
            if self.ended:
                raise HostGone(self.exit_description())
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
        if self.control.broken is not None:
            raise Violation(self.control.broken, by_zygote=True)

    def _read_zygote(self) -> None:
        chunk = read_now(self.answers_fd)
        if chunk is None:
            return
        if not chunk:
            self.ended = True
            return
        for line in self.control.feed(chunk):
            self._heard(line)

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
        """The reply to the last request, or TimeoutError, Violation or HostGone. While the
        last game is ending, its end's own allowance applies; a request held until then
        has `timeout` from when it went out, if that is later than `deadline`."""
        while True:
            self._check_zygote()
            if not self.ending:   # what came before ENDED was the last game's
                if self.replies.broken is not None:
                    raise Violation(self.replies.broken)
                reply = self.replies.take()
                if reply is not None:
                    return reply
                if self.died is not None:
                    reply = self._written_before_death()
                    if reply is not None:
                        return reply
                    raise GameDied(self.died)
            if self.ended:
                # its last words may still wait unread: an end seen past the deadline
                # (_last_look) is seen on the reply pipe alone
                death = self.exit_description()
                self._drain_remaining()
                raise HostGone(death)
            ending = self.ending
            limit = self.end_deadline if ending else max(deadline, self.released_at + timeout)
            if self._wait(limit):
                continue
            # past the limit, a last look at what is already waiting (the monitor may have
            # been busy elsewhere): ENDED releases the request, which then has its time
            self._last_look()
            if ending and self.ending:
                raise HostGone(f"its last game's processes did not end within "
                            f"{self.end_allowance:g} s")
            if not ending and not self.ready():
                raise NoAnswer(untaken=bool(self.outgoing))

    def _written_before_death(self) -> str | None:
        """A reply its game's process wrote before it died, still in the pipe: that is its
        answer (the zygote's DIED, read first, may have overtaken it). Bounded: the junk
        allowance stops a flood."""
        while (self.replies.reply is None and self.replies.broken is None
               and self._read_replies()):
            pass
        if self.replies.broken is not None:
            raise Violation(self.replies.broken)
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
        if self.ended or self.control.broken is not None:
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
        chunk = read_now(self.stderr_fd)
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
            return killed_by(-code)
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
        # its numbers forgotten before the streams close them (harness/isolation/descriptors.py)
        self.control_fd = self.answers_fd = self.stderr_fd = CLOSED
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        close_held(self, "request_fd", "reply_fd")

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

