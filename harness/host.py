"""The agent host: `python -m harness.host KIND SOURCE NAME`, KIND a language of
harness.lang the Python host serves, or "builtin".

Serves one Python, Hy or built-in agent over the line protocol of docs/DESIGN.md, as a
zygote (harness/zygote.py): this process never runs agent code. A throwaway child compiles
the agent and loads it once (a file that does not load is a LOADERR); every game is then
played by a fresh child forked from here, which runs the agent's module anew and dies at
the game's end with everything it started. Before any of that, the protocol moves to
private descriptors: the agent's stdin is empty and its stdout goes to stderr, which the
monitor captures apart from the protocol.
"""
from __future__ import annotations

import gc
import marshal
import os
import signal
import sys
from pathlib import Path

from . import world as worlds, zygote
from .seccomp import game_filter

CODE, FAILED = b"C", b"E"   # the first byte of what the preparing child sends back


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


# -- the agent, per language ------------------------------------------------------------------
class Agent:
    """What the zygote knows of the agent: how to prepare it (in a throwaway child: this
    runs agent code) and how a game's child makes a runtime from what preparing gave."""

    def __init__(self, kind: str, source: str, name: str):
        self.kind, self.path, self.name = kind, Path(source), name
        # what every game's child uses, imported once here (no agent code runs), so that
        # no game pays for importing it again
        from . import answers, lang, pyload, rules, runtime  # noqa: F401

        self.language = lang.LANGUAGES.get(kind)   # None for a built-in
        if self.language is None:
            from . import builtins  # noqa: F401
        else:
            self.language.preload_in_host(self.path)

    def prepare(self) -> bytes:
        """The compiled code (marshal), after loading it once; LoadError if it does not."""
        if self.language is None:  # a built-in: a name or a strategy table's key
            from .builtins import strategy_for

            strategy_for(self.name)
            return b""
        return marshal.dumps(self.language.checked_code(self.path, self.name))

    def runtime(self, compiled: bytes):
        from .runtime import AgentRuntime, StrategyRuntime

        if self.language is None:
            from .builtins import strategy_for

            return StrategyRuntime(strategy_for(self.name))
        from .pyload import code_factory

        factory = code_factory(marshal.loads(compiled), self.path, self.name, check=False)
        return AgentRuntime(factory, self.language.pairs())


# -- the zygote ---------------------------------------------------------------------------------
class Zygote:
    def __init__(self, agent: Agent, requests: int, replies: int, token: str,
                 world: worlds.World | None):
        self.agent = agent
        self.requests, self.replies = requests, replies
        self.token = token.encode("ascii", "replace") + b" "
        self.world = world        # None: games are plain forks (no user namespaces here)
        self.filter = game_filter()   # what every process running agent code runs under
        self.compiled = b""
        # the next or current game's (pid, request fd, reply reader)
        self.child: tuple[int, int, zygote.LineReader] | None = None
        self.playing = False  # the child has its GAME

    def send(self, text: bytes) -> None:
        os.write(self.replies, self.token + text + b"\n")

    # the agent is prepared once, in a child that then dies with whatever it started
    def prepare(self) -> bytes | None:
        """The compiled agent; None (after sending LOADERR) when it does not load."""
        from .errors import LoadError
        from .runtime import describe_exception, one_line

        read_end, write_end = os.pipe()
        pid = self._fork()
        if pid == 0:
            os.close(read_end)
            self._in_child(lambda: self._report_preparation(write_end, LoadError,
                                                            describe_exception))
        os.close(write_end)
        result = _read_all(read_end)
        status = _exit_status(pid)
        self._clean_up()
        if result[:1] == CODE:
            return result[1:]
        if result[:1] == FAILED:
            self.send(b"LOADERR " + one_line(result[1:].decode("utf-8", "replace")).encode())
            return None
        worlds.end_like(status)  # it died without a word: this process says how, as it would

    def _report_preparation(self, fd, load_error, describe_exception):
        try:
            message = CODE + self.agent.prepare()
        except load_error as error:
            message = FAILED + str(error).encode("utf-8", "replace")
        except BaseException as error:  # anything else while loading is still a load error
            message = FAILED + f"{self.agent.path}: {describe_exception(error)}".encode(
                "utf-8", "replace")
        _write_all(fd, message)

    def serve_builtin(self) -> None:
        """A built-in strategy is our own code: its games need no fresh process, only a
        fresh strategy object (what a fork would cost, a game start here does not)."""
        from .rules import Payoffs

        reader = zygote.LineReader(self.requests)
        runtime = self.agent.runtime(b"")
        playing = False
        while (line := reader.next_line()) is not None:
            words = line.decode("ascii", "replace").split()
            command = words[0] if words else ""
            if command == "GAME":
                seed, per_turn, t, r, p, s = map(int, words[1:7])
                runtime.start_game(seed, per_turn, Payoffs(t, r, p, s))
                playing = True
            elif command in ("TURN", "SYNC") and playing:
                if len(words) == 3:
                    runtime.record(words[1], words[2])
                if command == "TURN":
                    kind, text, _warning = runtime.call()
                    self.send(f"{kind} {text}".encode("ascii"))
            elif command == "TURN":
                self.send(b"ERROR no game was started")
            elif command == "END":
                playing = False
            elif command == "QUIT":
                break

    def serve(self) -> None:
        """Relay the monitor's requests: a GAME goes to a child forked in advance (it
        waits, with nothing loaded, for its seed), the game's TURNs and SYNCs to that
        child; END kills it and all it started, and forks the next one."""
        self._spawn()
        reader = zygote.LineReader(self.requests)
        while (line := reader.next_line()) is not None:
            command = line.split(b" ", 1)[0]
            if command in (b"TURN", b"SYNC"):
                self._relay(command, line)
            elif command == b"GAME":
                if self.playing:  # a new game without END: the last one ends first
                    self._renew()
                self.playing = True
                self._relay(command, line)
            elif command == b"END":
                self._renew()
            elif command == b"QUIT":
                break
        self._clean_up()

    def _renew(self) -> None:
        """The game's child and everything it started die; the next game's child waits."""
        self.playing = False
        assert self.child is not None  # _spawn made one before the first game
        pid, to_child, from_child = self.child
        os.close(to_child)
        os.close(from_child.fd)
        self._clean_up()
        self._spawn()

    def _spawn(self) -> None:
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        pid = self._fork()
        if pid == 0:
            os.close(requests_write)
            os.close(replies_read)
            self._in_child(lambda: self._play(requests_read, replies_write))
        os.close(requests_read)
        os.close(replies_write)
        self.child = (pid, requests_write, zygote.LineReader(replies_read))

    def _play(self, requests: int, replies: int) -> None:
        """In a game's child: wait for GAME, then a fresh agent serves the game's turns."""
        from .rules import Payoffs

        reader = zygote.LineReader(requests)
        runtime = None
        while (line := reader.next_line()) is not None:
            words = line.decode("ascii", "replace").split()
            if runtime is None:
                if words[:1] == ["GAME"]:
                    seed, per_turn, t, r, p, s = map(int, words[1:7])
                    runtime = self.agent.runtime(self.compiled)
                    runtime.start_game(seed, per_turn, Payoffs(t, r, p, s))
                continue
            if len(words) == 3:
                runtime.record(words[1], words[2])
            if words and words[0] == "TURN":
                kind, text, warning = runtime.call()
                reply = f"{kind} {text} WARN {warning}" if warning else f"{kind} {text}"
                _write_all(replies, reply.encode("utf-8", "replace") + b"\n")

    def _relay(self, command: bytes, line: bytes) -> None:
        assert self.child is not None  # _spawn made one before the first request
        pid, to_child, from_child = self.child
        if not self.playing:
            if command == b"TURN":
                self.send(b"ERROR no game was started")
            return
        if command == b"TURN" and from_child.pending():
            self._violation("replied before it was asked")
        try:
            _write_all(to_child, line + b"\n")
        except OSError:
            pass  # it is gone: its reply pipe says so
        if command != b"TURN":
            return
        reply = from_child.next_line()
        if reply is not None and from_child.buffer:
            self._violation("more than one reply to one request")
        if reply is None:  # the game's child died (or closed its replies): say it as it did
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            status = _exit_status(pid)
            self._clean_up()
            worlds.end_like(status)
        self.send(reply)

    def _violation(self, what: str) -> None:
        """The game's child broke the one-reply rule (its agent wrote into the pipe the
        child answers on): the game's processes die, and this host ends saying why, which
        the monitor records as the agent's crash and replaces the host for the next game."""
        assert self.child is not None
        os.kill(self.child[0], signal.SIGKILL)
        _exit_status(self.child[0])
        self._clean_up()
        # on a line of its own: the agent may have left its last line unended (a write to a
        # full stderr pipe, cut short by the kill), and the monitor reads the last line
        os.write(2, f"\nprotocol violation: {what}\n".encode())
        os._exit(1)

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
            zygote.die_with_zygote()
            os.close(self.requests)
            os.close(self.replies)
            if self.world is not None:
                self.world.build()
            if self.filter is not None:
                self.filter()
            work()
        except BaseException:  # the host's own code failed: the monitor sees it die
            os._exit(70)
        os._exit(0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _exit_status(pid: int) -> int:
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _site_folders() -> None:
    """Started with -S (harness/lang/python_process.py): the monitor's site folders (not the
    user's), without their .pth files, so that installed libraries (hy, hyrule, what agents
    import) are found. The monitor names them (PDH_SITE_FOLDERS): under -S this process
    would name the base interpreter's, not a virtual environment's."""
    if not sys.flags.no_site:
        return
    given = os.environ.pop("PDH_SITE_FOLDERS", None)
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
        from .runtime import one_line

        os.write(replies, f"{token} LOADERR {one_line(reason)}\n".encode("utf-8", "replace"))
        return 1

    kind, source, name = argv
    required = os.environ.pop(worlds.REQUIRED, "") == "1"
    wanted = os.environ.pop(worlds.OFF, "") != "1" and kind != "builtin"
    try:
        agent = _agent(kind, source, name)
    except BaseException as error:  # unreadable, or Hy missing: the agent cannot load here
        from .errors import LoadError
        from .runtime import describe_exception

        if isinstance(error, LoadError):
            return refuse(str(error))
        text = describe_exception(error)
        if isinstance(error, ImportError):  # only the harness's own libraries load here
            text += (": the installation's, not the agent's: the Python running pdharness "
                     f"({sys.executable}) cannot import it for this host; install pdharness "
                     "with its dependencies into that Python (or its virtual environment)")
        return refuse(text)
    try:  # after the imports above: a world's user namespace may not see where they live
        world = worlds.enter(keep_open=(requests, replies)) if wanted else None
        if world is None and required and wanted:
            raise OSError(0, "the kernel allows no user namespace here")
    except OSError as error:
        return refuse(f"cannot make a game's namespaces: {error.strerror or error}")
    zygote.become_zygote()
    host = Zygote(agent, requests, replies, token, world)
    compiled = host.prepare()
    if compiled is None:
        return 1
    host.compiled = compiled
    host.send(b"READY")
    if agent.language is None:  # a built-in is our own code: no fork, no world needed
        host.serve_builtin()
    else:
        host.serve()
    return 0


def _agent(kind: str, source: str, name: str) -> Agent:
    """The agent's bytes, read before any game's world hides its file (the bytes the run
    plays, from the monitor), and what every game's child needs, imported once."""
    if kind != "builtin":
        from .agent_files import take_given_source

        take_given_source(source)
    return Agent(kind, source, name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
