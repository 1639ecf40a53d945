"""One OS process per agent, started once and reused from game to game.

The monitor sends only what changed since the last call (the previous turn as played) and
reads back one marked line per call; nothing from the agent's process is evaluated or
unpickled, and every reply is checked against the protocol's grammar. A call past its
deadline gets the process killed from here and replaced, brought up to date with the game
so far; a process that dies is out for the rest of that game and replaced for the next.
"""
from __future__ import annotations

import errno
import secrets
import subprocess
import time

from harness.agents.lang.language import last_line
from harness.agents.runtime import one_line
from harness.core import protocol
from harness.core.errors import LoadError, OutOfFiles
from harness.core.fault_policy import FAULT_POLICY, Event, Process

from ..launch import Launch
from ..own_time import OWN_TIME_CAP
from .agent_handle import SILENT_DEFAULT, Fault, GameStart, Last, Reply, plain_reply
from .captured_output import CapturedOutput
from .host_channels import GameChannel, GameDied, HostGone, NoAnswer, Violation
from .host_process import HostProcess


def load_too_long(took: float, limit: float, stopped: bool = True) -> str:
    """The load error of an agent whose load took longer than --load-timeout: `stopped`
    at the limit (a host's), or let finish (the monitor's own, `--isolation none`)."""
    taken = f"stopped after {took:.1f} s" if stopped else f"it took {took:.1f} s"
    return (f"did not load within the {limit:g} s allowed (--load-timeout): {taken}; "
            "import less, or compute less at the top of the file")


def _as_written(message: str) -> str:
    return message


def _as_is(argv, env) -> Launch:
    return Launch(list(argv), env)


_MOVES_ALONE = protocol.MOVES.word + " "   # the start of the reply of nearly every call
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
    printed = None   # what it prints goes to its own process's stderr: captured_output

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
        self.wrap = wrap or _as_is  # (argv, env) -> harness.isolation.launch.Launch
        # output -> why the host died: its language reads its own runtime's crash output
        self.last_words = last_words or last_line
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
                               launch.cpu_counter, launch.cpu_seconds, launch.ended)
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
        try:
            line = host.first_words(time.monotonic() + start_timeout)
            if protocol.parse(line, protocol.MONITOR_READS_CONTROL)[0] is protocol.LOADING:
                line = self._after_loading(host)
        except TimeoutError:
            host.kill()
            raise LoadError(f"did not finish loading within {start_timeout:g} s") from None
        except HostGone as death:
            host.kill()
            raise LoadError(f"{death} while loading{self._output_hint()}") from death
        except Violation as violation:
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
        if self.loading:
            return host.due(self.loading_until, self._limit()) + self.credit
        return host.due(self.asked_until, self.timeout) + self.credit

    def _limit(self) -> float:
        """The time the awaited answer has: its load's, or its call's."""
        return self.load_timeout if self.loading and self.load_timeout else self.timeout

    def _time_given_back(self) -> bool:
        """Its deadline has passed: move it on by the time the game's process waited for
        a CPU (harness/isolation/own_time.py); True if the call still has time then, or if
        the process is found dead (the reply is then that death, whenever the zygote,
        which may wait for a CPU too, gets to report it)."""
        host = self.host
        if host is None or not host.in_call():
            return False
        waited, status = host.at_deadline()
        if status is not None:   # read_line still takes a reply written before it died
            host.found_dead(status)
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
            raise Violation(f"{one_line(line, 60)!r} where LOADED answers GAME")
        self.loading = False
        turn, self.held_turn = self.held_turn, None
        if turn is not None:
            host.ask(turn)
            self.asked_until = time.monotonic() + self.timeout
            self.credit = 0.0

    def _lose_host(self) -> None:
        self.loading, self.held_turn = False, None
        host, self.host = self.host, None
        if host is not None:
            host.kill()

    # -- the handle -------------------------------------------------------------------------
    def start_game(self, start: GameStart) -> None:
        self.start = start
        self.turns = []
        self.out_for_game = False
        self.asked = False
        self.stale = False
        if self.host is not None and self.host.worn_out():
            host, self.host = self.host, None
            host.quit()
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
        line = host.answer_now()
        if line is not None:
            try:
                self._loaded(host, line)
            except Violation as violation:
                host.broke_protocol(str(violation))

    def collect(self) -> Reply:
        if self.out_for_game:
            fault, self.unreported = self.unreported, None
            return SILENT_DEFAULT if fault is None else Reply(None, fault)
        self.asked = False
        host = self.host
        assert host is not None  # request() asked it, or the handle is out for the game
        line = None if self.loading else host.answer_now()
        if line is not None:   # the answer is here: as a rule
            return self._answered(host, line)
        return self._slow_collect(host)

    def _slow_collect(self, host: HostProcess) -> Reply:
        """collect(), when the answer is not simply there: wait for it, or the fault."""
        try:
            line = self._reply(host)
        except NoAnswer as late:
            # a host that stopped reading its requests cannot answer them either
            what = "did not take its request" if late.untaken else "no answer"
            if self.loading:
                what = "did not load"
            return self._fault(Event.NO_ANSWER, f"{what} within {self._time_allowed()}; "
                                                "process killed and replaced")
        except GameDied as death:   # the host lives on: the next game forks from it
            host.drain_output()   # its last words, which say why
            return self._fault(Event.DIED, f"{death}{self._output_hint()}")
        except HostGone as death:
            return self._fault(Event.DIED, f"{death}{self._output_hint()}", whole_host=True)
        except Violation as violation:   # the zygote's own: the whole host goes
            return self._fault(Event.BROKE_PROTOCOL, f"protocol violation: {violation}; "
                                                     "process killed, default answer for "
                                                     "the rest of the game",
                               whole_host=violation.by_zygote)
        return self._answered(host, line)

    def _answered(self, host: HostProcess, line: str) -> Reply:
        host.answered(asked_at=self.asked_until - self.timeout)
        return self._parse(line)

    def _fault(self, event: Event, message: str, whole_host: bool = False) -> Reply:
        """The reply a fault makes, and what the policy's table says it does: to the
        agent's process (kept; its game's process killed and a fresh one told the game
        so far at the next request; or gone for the game), and whether the agent is out
        for the game. `whole_host`: the host itself failed (it died, or its zygote broke
        the protocol), so it goes, whatever the row (a fresh one is started when needed)."""
        consequence = FAULT_POLICY.consequence(event)
        if whole_host:
            self._lose_host()
        elif consequence.process is not Process.KEPT and self.host is not None:
            self._end_its_process()
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
        if line.startswith(_MOVES_ALONE):  # the plain reply, read here at once
            moves = line[len(_MOVES_ALONE):]
            if len(moves) == per_turn and not moves.strip("CD"):
                return plain_reply(moves)
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
        host, self.host = self.host, None   # forgotten first: a Ctrl-C in quit() ends it once
        if host is not None:
            host.quit()

    def fork_child(self) -> bool:
        """Forget the host without touching its process, which belongs to the process that
        forked this one: a forked worker (harness/engine/runners.py) must open hosts of its own."""
        host, self.host = self.host, None
        if host is not None:
            host.close_pipes()
        return False

    def captured_output(self) -> str:
        return self.output.text()
