"""The agent host: `python -m harness.isolation.host KIND SOURCE NAME`, KIND a language of
harness.agents.lang the Python host serves, or "builtin".

Serves one Python, Hy or built-in agent over the line protocol of docs/DESIGN.md, as a
zygote (harness/isolation/process_tree.py): this process never runs agent code. A throwaway child compiles
the agent and loads it once (a file that does not load is a LOADERR); every game is then
played by a fresh child forked from here, which runs the agent's module anew and dies at
the game's end with everything it started. Before any of that, the protocol moves to
private descriptors: the agent's stdin is empty and its stdout goes to stderr, which the
monitor captures apart from the protocol. Imports are in functions: its image stays lean.
"""
from __future__ import annotations

import gc
import os
import select
import sys

from harness.agents import agent_imports
from harness.core import protocol

from . import process_tree as zygote, world as worlds
from .host_agent import Agent, reply_line
from .seccomp import game_filter

CODE, FAILED = b"C", b"E"   # the first byte of what the preparing child sends back

# The protocol's words (harness/core/protocol.py), bound once. What runs once a game (the
# zygote's END and ENDED, a game's child reading its requests and writing its replies)
# compares and writes them directly rather than through protocol.parse and Verb.line: a
# game's child, forked from the zygote, copies every page whose objects it touches (their
# reference counts are written), and the table's reader and writer touch about 26 more
# pages a game than these (590 -> 627 minor faults a game start, benchmarks/game_start.py's
# workload). The monitor reads everything through the table; tests/test_protocol.py checks
# that what this writes is what the table writes.
_GAME, _TURN = protocol.GAME.word, protocol.TURN.word
_GAME_BYTES = _GAME.encode("ascii") + b" "
_TURN_OR_SYNC = (_TURN, protocol.SYNC.word)
_END, _QUIT = protocol.END.word.encode("ascii"), protocol.QUIT.word.encode("ascii")
_LOADED_LINE = protocol.LOADED.line().encode("ascii")


def _take_protocol_streams() -> tuple[int, int]:
    """(request fd, reply fd) private to the host; fd 0 -> /dev/null, fd 1 -> fd 2."""
    requests = os.dup(0)
    replies = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return requests, replies


# -- the zygote ---------------------------------------------------------------------------------
class Zygote:
    """Serves the control channel (docs/DESIGN.md): READY or LOADERR, END -> ENDED, QUIT,
    and DIED when a game's child dies unbidden. A game's child reads and answers the game
    channel itself; this process never reads it, and never runs agent code."""

    def __init__(self, agent: Agent, requests: int, replies: int, token: str,
                 world: worlds.World | None, game_pipes: tuple[int, int]):
        self.agent = agent
        self.requests, self.replies = requests, replies
        self.game_requests, self.game_replies = game_pipes
        self.token = token.encode("ascii", "replace") + b" "
        self.ended = self.token + protocol.ENDED.line().encode("ascii")   # once a game
        self.world = world        # None: games are plain forks (no user namespaces here)
        # a game's process says LOADED once its agent has loaded (the monitor waits for it)
        self.answer_game = os.environ.pop(protocol.ANSWER_GAME, "") == "1"
        self.filter = game_filter()   # what every process running agent code runs under
        self.compiled = b""
        self.serial = 1           # the game the next child waits for (the monitor counts too)
        self.child: tuple[int, int] | None = None   # the next or current game's (pid, pidfd)

    def send(self, verb: protocol.Verb, *values: object) -> None:
        os.write(self.replies, self.token + verb.line(*values).encode("utf-8", "replace"))

    # the agent is prepared once, in a child that then dies with whatever it started
    def prepare(self) -> bytes | None:
        """The compiled agent; None (after sending LOADERR) when it does not load."""
        from harness.agents.runtime import describe_exception, one_line
        from harness.core.errors import LoadError

        read_end, write_end = os.pipe()
        self.send(protocol.LOADING)   # the monitor's load time limit starts now
        pid = self._fork()
        if pid == 0:
            os.close(read_end)
            os.close(self.game_requests)   # it plays no game: what it loads sees no game
            os.close(self.game_replies)
            self._in_child(lambda: self._report_preparation(write_end, LoadError,
                                                            describe_exception))
        os.close(write_end)
        result = _read_all(read_end)
        status = _exit_status(pid)
        self._clean_up()
        if result[:1] == CODE:
            return result[1:]
        if result[:1] == FAILED:
            self.send(protocol.LOADERR, one_line(result[1:].decode("utf-8", "replace")))
            return None
        worlds.end_like(status)  # it died without a word: this process says how, as it would

    def _report_preparation(self, fd, load_error, describe_exception):
        try:
            message = CODE + self.agent.prepare()
        except load_error as error:
            message = FAILED + str(error).encode("utf-8", "replace")
        except BaseException as error:  # anything else while loading is still a load error
            message = FAILED + f"{self.agent.source}: {describe_exception(error)}".encode(
                "utf-8", "replace")
        _write_all(fd, message)

    def serve(self, games=None) -> None:
        """READY once the first game's child is forked, then until QUIT: at END, the game's
        child and all it started die, the next game's child is forked (it waits, with
        nothing loaded, for its GAME), and ENDED says so."""
        requests = zygote.LineReader(self.requests)
        poller = select.poll()
        poller.register(self.requests, select.POLLIN)
        if games is not None:   # a built-in's games, served here
            poller.register(self.game_requests, select.POLLIN)
        else:   # forked before READY: its cost is never part of an agent's first call
            self._spawn(poller)
        self.send(protocol.READY)
        while True:
            if not requests.has_line():
                ready = dict(poller.poll())
                if self.child is not None and self.child[1] in ready:
                    self._child_died(poller)
                if games is not None and self.game_requests in ready:
                    games.take()
                if self.requests not in ready:
                    continue
            line = requests.next_line()
            if line is None or line == _QUIT:
                break
            if line == _END:
                self._renew(poller, games)
        self._clean_up()

    def _renew(self, poller, games) -> None:
        if self.child is not None:
            poller.unregister(self.child[1])
            os.close(self.child[1])
            self.child = None
        self._clean_up()
        self.serial += 1
        if games is not None:
            games.serial = self.serial
        else:   # forked before ENDED: its cost is never part of an agent's first call
            self._spawn(poller)
        os.write(self.replies, self.ended)   # every process of the game is dead: the next begins

    def _child_died(self, poller) -> None:
        """The game's child ended before its END: this game is over for the agent."""
        assert self.child is not None
        pid, pidfd = self.child
        poller.unregister(pidfd)
        self.child = None
        # said before the process is reaped: until then the monitor can see it dead in
        # /proc, and once it is gone the monitor has this word (harness/isolation/own_time.py),
        # however long a crowded machine keeps this process from a CPU in between
        told = status_of_ended(pidfd)
        if told is not None:
            self.send(protocol.DIED, told)
        os.close(pidfd)
        status = _exit_status(pid)
        self._clean_up()
        if told is None:   # a kernel that cannot tell it unreaped (before Linux 5.4)
            self.send(protocol.DIED, status)

    def _spawn(self, poller) -> None:
        pid = self._fork()
        if pid == 0:
            self._in_child(lambda: self._play(self.serial))
        pidfd = os.pidfd_open(pid)
        poller.register(pidfd, select.POLLIN)
        self.child = (pid, pidfd)

    def _play(self, serial: int) -> None:
        """In a game's child: wait for its GAME, then a fresh agent serves the game's
        turns. Lines before it were meant for a game whose child died first."""
        reader = zygote.LineReader(self.game_requests)
        runtime = None
        while (line := reader.next_line()) is not None:
            words = line.decode("ascii", "replace").split()
            if runtime is None:
                if words[:2] == [_GAME, str(serial)]:
                    seed, per_turn, t, r, p, s = map(int, words[2:8])
                    runtime = self.agent.runtime(self.compiled)
                    runtime.start_game(seed, per_turn, self.agent.payoffs(t, r, p, s))
                    if self.answer_game:   # the first TURN comes only now: the load's limit
                        _write_all(self.game_replies, self.token + _LOADED_LINE)
                continue
            if len(words) == 3:   # SYNC, or a TURN after the first: the turn played
                runtime.record(words[1], words[2])
            if words and words[0] == _TURN:
                kind, text, warning = runtime.call()
                _write_all(self.game_replies, self.token + reply_line(kind, text, warning))

    def _clean_up(self) -> None:
        if self.world is not None:
            self.world.end()
        else:
            zygote.kill_descendants()

    def _fork(self) -> int:
        sys.stderr.flush()
        # what exists now is never collected in a child: a collection there would touch,
        # and so copy, every page of the zygote's objects
        gc.freeze()
        return self.world.fork() if self.world is not None else os.fork()

    def _in_child(self, work) -> None:
        """Run `work` in a just-forked child, away from the monitor's pipes; never return."""
        try:
            if self.world is None:   # in a world the kernel kills the game with the zygote,
                zygote.die_with_zygote()   # PID 1 of the namespace the game's is nested in
            os.close(self.requests)
            os.close(self.replies)
            if self.world is not None:
                self.world.build()
            if self.filter is not None:
                self.filter()
            work()
        except BaseException as error:  # the host's own code failed: the monitor sees it die
            _say_why(error)
            os._exit(70)
        os._exit(0)


class BuiltinGames:
    """A built-in strategy is our own code: its games need no fresh process, only a fresh
    strategy object (what a fork would cost, a game start here does not). Served in the
    zygote itself, from the game channel."""

    def __init__(self, host: Zygote):
        self.host = host
        self.reader = zygote.LineReader(host.game_requests)
        self.runtime = host.agent.runtime(b"")
        self.serial = host.serial
        self.playing = False

    def take(self) -> None:
        """Every whole line that has come (the monitor writes whole lines)."""
        from harness.core.rules import Payoffs

        line = self.reader.next_line()
        while line is not None:
            if line.startswith(_GAME_BYTES):   # the table reads the rare line, GAME
                verb, values = _request(line, protocol.GAME_PROCESS_READS)
                self.playing = verb is protocol.GAME and values[0] == self.serial
                if self.playing:
                    seed, per_turn, t, r, p, s = values[1:]
                    self.runtime.start_game(seed, per_turn, Payoffs(t, r, p, s))
            elif self.playing:   # a TURN or SYNC, every turn: its words, as a game's child
                words = line.decode("ascii", "replace").split()
                verb = words[0] if words else ""
                if len(words) == 3 and verb in _TURN_OR_SYNC:
                    self.runtime.record(words[1], words[2])
                if verb == _TURN:
                    kind, text, warning = self.runtime.call()
                    _write_all(self.host.game_replies,
                               self.host.token + reply_line(kind, text, warning))
            line = self.reader.next_line() if self.reader.has_line() else None


def _say_why(error: BaseException) -> None:
    """One line on stderr naming the error that ends a child of the host (its world not
    built, its pipes gone), which the monitor quotes with the death: status 70 alone says
    nothing. Written to fd 2 itself, whatever agent code did to sys.stderr."""
    try:
        # loaded already, by the Agent (host_agent.py), as in Zygote.prepare
        from harness.agents.runtime import describe_exception

        os.write(2, f"pdharness host: {describe_exception(error)}\n".encode("utf-8", "replace"))
    except BaseException:  # an error that cannot be told (or no stderr): the status stays
        pass


def _request(line: bytes, verbs: dict[str, protocol.Verb]):
    """(verb, values) of a request line from the monitor; (None, ()) if it is none of
    `verbs` (a line cut short, meant for a game whose process died first)."""
    return protocol.parse(line.decode("ascii", "replace"), verbs)


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)   # a reply is one short write (a view only for the rest)
    if written < len(data):
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(fd, view):]


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def status_of_ended(pidfd: int) -> int | None:
    """The wait(2) status of the ended process `pidfd` names, which stays unreaped; None
    where the kernel cannot say (waitid's P_PIDFD came with Linux 5.4)."""
    try:
        ended = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOWAIT)
    except OSError:
        return None
    if ended is None:   # cannot be: it has ended
        return None
    if ended.si_code == os.CLD_EXITED:
        return (ended.si_status & 0xFF) << 8
    return ended.si_status | (0x80 if ended.si_code == os.CLD_DUMPED else 0)


def _exit_status(pid: int) -> int:
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _site_folders() -> None:
    """Started with -S (harness/agents/lang/python_process.py): the monitor's site folders (not the
    user's), without their .pth files, so that installed libraries (hy, hyrule, what agents
    import) are found. The monitor names them (PDH_SITE_FOLDERS): under -S this process
    would name the base interpreter's, not a virtual environment's."""
    if not sys.flags.no_site:
        return
    given = os.environ.pop("PDH_SITE_FOLDERS", None)
    if agent_imports.serve_from_environment():   # only the declared libraries, by name
        return
    if given is None:  # started by hand, not by the monitor
        import site

        folders = site.getsitepackages()
    else:
        folders = given.split(os.pathsep) if given else []
    sys.path += [folder for folder in folders if folder not in sys.path]


def main(argv: list[str]) -> int:
    _site_folders()
    token = os.environ.pop("PDH_TOKEN", "")
    requests, replies = _take_protocol_streams()

    def refuse(reason: str) -> int:
        from harness.agents.runtime import one_line

        os.write(replies, f"{token} {protocol.LOADERR.line(one_line(reason))}".encode(
            "utf-8", "replace"))
        return 1

    kind, source, name = argv
    try:
        game_pipes = _game_pipes()
    except ValueError:
        return refuse("no game channel: PDH_GAME_FDS does not name two open descriptors")
    required = os.environ.pop(worlds.REQUIRED, "") == "1"
    wanted = os.environ.pop(worlds.OFF, "") != "1" and kind != "builtin"
    try:
        agent = _agent(kind, source, name)
    except BaseException as error:  # unreadable, or Hy missing: the agent cannot load here
        from harness.agents.runtime import describe_exception
        from harness.core.errors import LoadError

        if isinstance(error, LoadError):
            return refuse(str(error))
        text = describe_exception(error)
        if isinstance(error, ImportError):  # only the harness's own libraries load here
            text += (": the installation's, not the agent's: the Python running pdharness "
                     f"({sys.executable}) cannot import it for this host; install pdharness "
                     "with its dependencies into that Python (or its virtual environment)")
        return refuse(text)
    try:  # after the imports above: a world's user namespace may not see where they live
        world = worlds.enter(keep_open=(requests, replies, *game_pipes)) if wanted else None
        if world is None and required and wanted:
            raise OSError(0, "the kernel allows no user namespace here")
    except OSError as error:
        return refuse(f"cannot make a game's namespaces: {error.strerror or error}")
    for variable in (agent_imports.COVER, agent_imports.SHOW):   # no world took them
        os.environ.pop(variable, None)
    # the declared libraries the agent's file imports, once here rather than in every game
    agent_imports.preimport(os.environ.pop(agent_imports.PREIMPORT, "").split())
    zygote.become_zygote()
    host = Zygote(agent, requests, replies, token, world, game_pipes)
    compiled = host.prepare()
    if compiled is None:
        return 1
    host.compiled = compiled
    # a built-in is our own code: no fork, no world needed
    host.serve(BuiltinGames(host) if agent.language is None else None)
    return 0


def _game_pipes() -> tuple[int, int]:
    """The game channel the monitor passed down (request read end, reply write end);
    ValueError if it did not."""
    requests, replies = map(int, os.environ.pop("PDH_GAME_FDS", "").split(","))
    for fd in (requests, replies):
        try:
            os.set_inheritable(fd, False)   # a game's child has it by fork, nothing by exec
        except OSError:
            raise ValueError(fd) from None
    return requests, replies


def _agent(kind: str, source: str, name: str) -> Agent:
    """The agent's bytes, read before any game's world hides its file (the bytes the run
    plays, from the monitor), and what every game's child needs, imported once."""
    if kind == "builtin":
        return Agent(kind, source, name)
    from harness.agents.agent_files import AGENT_FOLDER, take_given_source

    take_given_source(source)
    return Agent(kind, source, name, os.environ.pop(AGENT_FOLDER, ""))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
