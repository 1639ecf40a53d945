"""The zygote: a host process that forks a fresh agent for every game and outlives none of it.

A host process (harness/isolation/host.py; lisp_bridge/sbcl_host_world.lisp does the same in Lisp) loads
the interpreter, itself and the agent's compiled code, but never runs agent code. For each
game it forks a child, in a world of its own (harness/isolation/world.py: its own PID, mount and IPC
namespaces, a new /tmp), that runs the agent's module fresh and serves that game's turns;
at the game's end the child's namespaces die with everything in them. Nothing an agent does
in one game (globals, Python's `builtins` or `sys.modules`, threads, child processes,
environment, files, process IDs) can reach another game, however the games are spread over
processes and runs.

A game's child answers the monitor itself, on the game channel; the zygote keeps the
control channel, which no child holds. It says ENDED only once every process of a game is
dead, and the monitor sends nothing of the next game before: so no process of a past game
can read a request or write a reply of a later one (docs/DESIGN.md, the host protocol).
"""
from __future__ import annotations

import ctypes
import os
import select
import signal

from harness.core.protocol import LINE_LIMIT

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36

_libc = None


def _prctl(option: int, value: int) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    _libc.prctl(option, value, 0, 0, 0)


def become_zygote() -> None:
    """Orphans of the agent's processes come back to this process (even after setsid or a
    double fork), and no process of the same user may ptrace it or read its memory."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)


def die_with_zygote() -> None:
    """In a forked child: the kernel kills it when the zygote dies (under `process`
    isolation nothing else would)."""
    _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))


# -- after a game, where no world was made (harness/isolation/world.py) ----------------------
def kill_descendants() -> None:
    """Kill every descendant (the game's child, its threads, its children wherever they
    went) and reap them all; returns when this process has no child left."""
    while True:
        for pid in descendants():
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def descendants(pid: int | str = "self") -> list[int]:
    """Every process below `pid`, found through /proc/PID/task/TID/children."""
    found, todo = [], [pid]
    while todo:
        below = children(todo.pop())
        found += below
        todo += below
    return found


def children(pid: int | str) -> list[int]:
    """The processes whose parent is `pid` (any of its threads); [] once it is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as listing:
                found += [int(word) for word in listing.read().split()]
        except (OSError, ValueError):
            continue
    return found


class LineReader:
    """Lines from a descriptor, read with os.read (no buffering shared with anyone), at
    most LINE_LIMIT bytes each: a longer line is cut there (the rest is dropped)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = bytearray()
        self.skipping = False

    def pending(self) -> bool:
        """Something is waiting to be read: buffered here, or in the pipe now."""
        if self.buffer:
            return True
        ready = select.poll()
        ready.register(self.fd, select.POLLIN)
        return bool(ready.poll(0))

    def has_line(self) -> bool:
        """A whole line (or one cut at the limit) is buffered: next_line will not read."""
        return b"\n" in self.buffer or len(self.buffer) > LINE_LIMIT

    def next_line(self) -> bytes | None:
        """The next line without its newline, or None at end of file."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                if self.skipping:
                    self.skipping = False
                    continue
                return line
            if len(self.buffer) > LINE_LIMIT and not self.skipping:
                line = bytes(self.buffer[:LINE_LIMIT])
                self.buffer.clear()
                self.skipping = True
                return line
            if self.skipping:
                self.buffer.clear()
            try:
                chunk = os.read(self.fd, 65536)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                return None
            self.buffer += chunk
