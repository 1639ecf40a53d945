"""Forked workers that a stop (Ctrl-C, SIGTERM, kill -9 of the monitor) can never hang.

multiprocessing.Pool could. Its workers share locks with the monitor (the task queue's
read lock is held by the idle worker blocked reading it) and its `terminate()` first takes
that lock itself, then SIGTERMs the workers and waits for them. So:
- a worker that inherits the monitor's Python-level SIGTERM handler may never die: Python
  runs a handler only between bytecodes, and a SIGTERM that lands while the worker is in C
  just before blocking (glibc's sem_wait loop, between futex calls) leaves it blocked for
  ever on the lock `terminate()` now holds (the hang of about 1 run in 30 when SIGTERM first
  ended runs as Ctrl-C does);
- a worker killed while it holds that lock (a SIGINT or SIGTERM sent to the whole process
  group by a terminal, `timeout`, systemd or a batch system) leaves `terminate()` waiting
  for the lock for ever;
- its workers outlive a monitor killed with SIGKILL, blocked on the queue.

Here each worker has a socket pair of its own and nothing else shared: no lock a dead
process can hold. Workers are forked with SIGINT and SIGTERM blocked, ignore both before
they are unblocked (the monitor alone decides when to stop), and get SIGKILL from the
kernel when the monitor dies (PR_SET_PDEATHSIG, checked against a monitor that died
before it was set). Stopping them is SIGKILL and waitpid, which nothing can delay.
"""
from __future__ import annotations

import os
import signal
import sys
import traceback
from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from multiprocessing.connection import Connection

_STOPS = {signal.SIGINT, signal.SIGTERM}
_PR_SET_PDEATHSIG = 1


class WorkerDied(RuntimeError):
    """A worker ended without answering (something in it called os._exit, or killed it)."""


class Workers:
    """`count` forked workers; `initializer()` runs in each one first. Fork from the thread
    that will stop them: the kernel's parent-death signal follows the forking thread."""

    def __init__(self, count: int, initializer: Callable[[], None] | None = None):
        self.pids: list[int] = []
        self.connections: list[Connection] = []
        try:
            self._start(count, initializer)
        except BaseException:
            self.close()
            raise

    def _start(self, count, initializer) -> None:
        from multiprocessing import Pipe  # heavy (multiprocessing): loaded only where used

        for stream in (sys.stdout, sys.stderr):  # else each worker would print it again
            try:
                stream.flush()
            except (AttributeError, ValueError, OSError):
                pass
        monitor = os.getpid()
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        try:
            for _ in range(count):
                ours, theirs = Pipe()
                pid = os.fork()
                if pid == 0:   # never returns
                    _worker(theirs, monitor, before, initializer, self.connections + [ours])
                theirs.close()
                self.pids.append(pid)
                self.connections.append(ours)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)  # a stop meanwhile lands here

    def map(self, function: Callable, items: Iterable, chunksize: int = 1,
            ordered: bool = True) -> Iterator:
        """function(item) for every item, computed in the workers `chunksize` items at a
        time; in the order of `items` (else as they come). `function` must be a module's
        (it is sent by name). An exception in a worker is raised here; a worker that dies
        is WorkerDied. Any exception, Ctrl-C included, stops the workers: the caller closes
        them, and they can no longer be used."""
        items = list(items)
        batches = deque((start, items[start:start + chunksize])
                        for start in range(0, len(items), chunksize))
        total = len(batches)
        idle = list(self.connections)
        busy: dict = {}        # connection -> the index of its batch's first item
        done: dict = {}        # first item's index -> the batch's results
        given = 0              # batches handed back to the caller
        next_first = 0         # (ordered) the first item of the next batch to hand back
        try:
            while given < total:
                while idle and batches:
                    first, batch = batches.popleft()
                    connection = idle.pop()
                    connection.send((function, batch))
                    busy[connection] = first
                for connection in _ready(list(busy)):
                    first = busy.pop(connection)
                    results = self._answer(connection)
                    idle.append(connection)
                    if ordered:
                        done[first] = results
                    else:
                        given += 1
                        yield from results
                while ordered and next_first in done:
                    results = done.pop(next_first)
                    next_first += len(results)
                    given += 1
                    yield from results
        except BaseException:
            self.close()
            raise

    def _answer(self, connection) -> list:
        try:
            ok, value = connection.recv()
        except (EOFError, OSError):
            raise WorkerDied(f"a worker process ({self._status(connection)}) ended "
                             "without answering") from None
        if not ok:
            raise value
        return value

    def _status(self, connection) -> str:
        """How the worker behind `connection` ended (it is reaped: never killed again)."""
        number = self.connections.index(connection)
        pid, self.pids[number] = self.pids[number], 0
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    def close(self) -> None:
        """Kill the workers and reap them: SIGKILL cannot be ignored or delayed. They are
        forgotten first: a Ctrl-C in the middle leaves the rest to die with the monitor,
        and no pid, reaped and perhaps reused, is killed or waited for again."""
        living = [pid for pid in self.pids if pid]   # 0: reaped already (_status)
        connections, self.pids, self.connections = self.connections, [], []
        for pid in living:
            os.kill(pid, signal.SIGKILL)   # not reaped: a zombie at worst, never another's
        for pid in living:
            os.waitpid(pid, 0)
        for connection in connections:
            connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _ready(connections) -> list:
    from multiprocessing.connection import wait  # heavy (multiprocessing): loaded only where used

    return wait(connections)


def _worker(connection, monitor: int, mask, initializer, inherited) -> None:
    """A worker's life, in the forked child: never returns into the caller's stack."""
    status = 1
    try:
        for other in inherited:   # the other workers' ends: theirs to close, not ours
            other.close()
        for stop in _STOPS:
            signal.signal(stop, signal.SIG_IGN)
        _die_with(monitor)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        _quiet_stdin()
        if initializer is not None:
            initializer()
        _serve(connection)
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(status)


def _die_with(monitor: int) -> None:
    """SIGKILL from the kernel when the monitor dies; if it died already (before the
    prctl, which would then never fire), end now."""
    import ctypes  # heavy (ctypes): loaded only where used

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != monitor:
        os._exit(1)


def _quiet_stdin() -> None:
    """As multiprocessing does: a worker reads no terminal (in-monitor agents run here)."""
    try:
        sys.stdin.close()
        sys.stdin = open(os.devnull, encoding="utf-8")
    except (AttributeError, OSError, ValueError):
        pass


def _serve(connection) -> None:
    while True:
        try:
            function, batch = connection.recv()
        except EOFError:
            return
        answer: tuple[bool, object]
        try:
            answer = (True, [function(item) for item in batch])
        except Exception as error:  # the caller's to see, as multiprocessing does
            answer = (False, error)
        try:
            connection.send(answer)
        except Exception as error:  # an exception or a result that does not pickle
            connection.send((False, RuntimeError(f"{type(error).__name__}: {error}")))
