"""A call's own time: the time since it was asked, less the time its agent waited for a
CPU that other programs held, measured over the call alone.

The time limit is the agent's: on a machine that other programs load (a grading server, a
CI runner beside another suite, a laptop), a call that needs 20 ms of CPU can take a
second of wall time queued behind them, and an honest agent must not lose its turn for
that. So a call's deadline is moved on by the time its game's process was runnable but
not running (the kernel counts it per thread: /proc/PID/schedstat, second field), up to
OWN_TIME_CAP times the limit in all. A call that sleeps, blocks or waits for something
else is charged every second of it.

An agent can make its process wait on purpose: threads or processes of its own, pinned
with it to one CPU, that compute while it does (and sleep, stop or block on a lock
whenever a monitor might look). That wait is its own doing, and so it is not given back:

- everything is counted over the call's own interval, from when its request went out
  (`CallClock.start`) to the deadline, never over the process's life;
- the CPU of everything the agent runs counts as the agent's: its cgroup's counter
  (every thread of every process it started, harness/isolation/cgroups.py), or, where it
  has no cgroup and so may not fork (harness/isolation/confinement.py), every thread of
  its game's process (the process's CPU clock);
- what is given back is at most the wall time the agent did not use a CPU for:
  min(its game's process's wait, wall time - the agent's CPU time). While the agent used
  about a core's worth of CPU over the call (its cgroup allows it one core), that is
  nothing, whoever ran when; an agent whose own tasks keep its process waiting uses that
  CPU itself. So the CPU an agent uses in a call never exceeds the limit, however it
  spreads its work (with no cgroup, its threads may use every core, as they may anyway).

No moment's snapshot decides anything. The start costs a call two reads of open files
(the counter and the game's schedstat; `benchmarks/call_cost.py`); the game's process is
found once per game, below the zygote. Where /proc does not show it (another `hidepid`,
another kernel), nothing is given back: wall time, as before.

A game's process that died is not reaped by the zygote until the zygote gets a CPU, and
only then would the monitor hear of it (DIED); on a crowded machine that can take longer
than the cap. So a deadline that finds the game's process dead (a zombie with no thread
left) reads its wait status from /proc itself: the call is the crash it was, whenever the
zygote gets to say so. The kernel shows that status only to a reader that may trace the
process (games are not dumpable), else a 0 that would misname the death: without
CAP_SYS_PTRACE the monitor waits for the zygote's word instead, up to the cap. The zygote
says DIED before it reaps the process (harness/isolation/host.py's `status_of_ended`, and the
Lisp host's `ended-status`): so a game's process that a deadline no longer finds at all has
been reported already, and its DIED is waiting in the pipe.
"""
from __future__ import annotations

import math
import os
import time

from .descriptors import close_held

# A call's wall time never exceeds this many times the limit. It bounds what an agent that
# computes forever costs a loaded machine (the limit's worth of its own CPU can take many
# times that in wall time there), and leaves an honest call room at a load of ~10 a core.
OWN_TIME_CAP = 5
_NS_PER_SECOND = 1e9
_US_PER_SECOND = 1e6
_CPUCLOCK_SCHED = 2   # a process's CPU clock id: ((~pid) << 3) | CPUCLOCK_SCHED (its threads)


class CallClock:
    """One host's agent over its current call: started when the call's request goes out,
    read when its deadline passes. `counter` is the file of the agent's cgroup that counts
    the CPU time of all its processes (cpuacct.usage, or cpu.stat on cgroup v2), or None
    where it has no cgroup and may not fork.

    Every call starts it, so the start only reads (two preads of open files, the bytes
    kept as they are); what they say is worked out at a deadline, which few calls reach."""

    def __init__(self, host_pid: int, counter: str | None = None):
        self.host_pid = host_pid
        self._counter = -1 if counter is None else _open(counter)
        self._grouped = counter is not None
        self._in_microseconds = counter is not None and counter.endswith("cpu.stat")
        self._zygote: int | None = None
        self._game: _GameProcess | None = None
        self._serial: int | None = None
        self._started = 0.0
        self._cpu_then: bytes | float | None = None   # the agent's CPU at the start, raw
        self._wait_then: bytes | None = None          # its game's process's schedstat then

    def start(self, serial: int) -> None:
        """The call's request goes out, in the host's game `serial` (a new game, or a
        replaced game's process, has a new one)."""
        game = self._game
        if game is None or serial != self._serial:
            game = self._game_of(serial)
        self._started = time.monotonic()
        if self._grouped and game is not None:   # as a rule: two reads, nothing more
            try:
                self._cpu_then = os.pread(self._counter, 64, 0)
                self._wait_then = os.pread(game.schedstat, 128, 0)
                return
            except OSError:
                pass
        self._cpu_then = self._read_cpu(game)
        # a game's process born after the start has all its life in the call
        self._wait_then = game.read_wait() if game is not None else _NOTHING_YET

    def at_deadline(self) -> tuple[float, int | None]:
        """(seconds of the call given back to it, its game's process's wait status if that
        process is dead): see the module's docstring."""
        known_at_start = self._game is not None
        game = self._game or self._find_game()
        if game is None:
            return 0.0, None
        dead, status = _death(game.pid)
        if dead:
            # its status when /proc tells it; else the wait is for the zygote's DIED, our own
            # code's report, however long a loaded machine keeps it from a CPU
            return (0.0, status) if status is not None else (math.inf, None)
        elapsed = time.monotonic() - self._started
        cpu_then = self._cpu_then if self._grouped or known_at_start else 0.0
        readings = (self._cpu_seconds(self._read_cpu(game)) - self._cpu_seconds(cpu_then),
                    _wait_seconds(game.read_wait()) - _wait_seconds(self._wait_then))
        if not all(map(math.isfinite, readings)):
            return 0.0, None   # a counter could not be read: nothing is given back
        used, waited = readings
        return max(0.0, min(waited, elapsed - used)), None

    def _game_of(self, serial: int) -> _GameProcess | None:
        if serial != self._serial:   # a new game, or a new process for this one
            self._forget_game()
            self._serial = serial
        return self._game or self._find_game()

    def close(self) -> None:
        self._forget_game()
        close_held(self, "_counter")

    # -- what is read ----------------------------------------------------------------------
    def _read_cpu(self, game: _GameProcess | None) -> bytes | float | None:
        """The CPU time of everything the agent runs so far, as read: its cgroup's counter
        (bytes), or its game's process's CPU clock (seconds; 0.0 before it is born);
        None when it cannot be read."""
        if not self._grouped:
            return game.cpu() if game is not None else 0.0
        try:
            return os.pread(self._counter, 64, 0)
        except OSError:
            return None

    def _cpu_seconds(self, read: bytes | float | None) -> float:
        """What `_read_cpu` read, in seconds (math.inf when it cannot be told)."""
        if read is None or isinstance(read, float):
            return math.inf if read is None else read
        try:
            if self._in_microseconds:   # cgroup v2's cpu.stat: "usage_usec N" first
                return int(read.split(b"\n", 1)[0].split()[1]) / _US_PER_SECOND
            return int(read) / _NS_PER_SECOND
        except (ValueError, IndexError):
            return math.inf

    def _find_game(self) -> _GameProcess | None:
        """The game's process now, if there is one yet: the zygote's first child once the
        zygote is known (one read: a zygote has one thread, as fork wants), else found
        below the host (a walk of its tree)."""
        if self._zygote is not None:
            pid = _first_child(self._zygote)
        else:
            tree = _children_below(self.host_pid)
            pid = game_process(tree)
            self._zygote = next((parent for parent, below in tree.items() if pid in below),
                                None)
        if pid is None:
            return None
        try:
            self._game = _GameProcess(pid)
        except OSError:
            return None
        return self._game

    def _forget_game(self) -> None:
        game, self._game = self._game, None   # forgotten first (harness/isolation/descriptors.py)
        if game is not None:
            game.close()


_NOTHING_YET = b"0 0 0"   # the schedstat of a process not born yet


def _wait_seconds(schedstat: bytes | None) -> float:
    """Seconds a thread was runnable but not running, from its schedstat as read (math.inf
    when it could not be read: nothing is given back then)."""
    if schedstat is None:
        return math.inf
    try:
        return int(schedstat.split()[1]) / _NS_PER_SECOND
    except (ValueError, IndexError):
        return math.inf


def _first_child(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as found:
            first = found.read(64).split(maxsplit=1)
        return int(first[0]) if first else None
    except (OSError, ValueError):
        return None


class _GameProcess:
    """The process that plays the game, its counters held open for the game's calls."""

    def __init__(self, pid: int):
        self.pid = pid
        self.schedstat = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY)
        self._clock = ((~pid) << 3) | _CPUCLOCK_SCHED

    def read_wait(self) -> bytes | None:
        """Its first thread's schedstat (run time, wait, slices), None if unreadable."""
        try:
            return os.pread(self.schedstat, 128, 0)
        except OSError:
            return None

    def cpu(self) -> float | None:
        """The CPU seconds of all its threads, living or ended (None if unknown)."""
        try:
            return time.clock_gettime(self._clock)
        except OSError:
            return None

    def close(self) -> None:
        close_held(self, "schedstat")


def _open(path: str) -> int:
    try:
        return os.open(path, os.O_RDONLY)
    except OSError:
        return -1   # unreadable: every read fails, and nothing is given back


def _death(pid: int) -> tuple[bool, int | None]:
    """(whether the process has ended and is not reaped yet, its wait(2) status when this
    monitor may read it). Dead is a zombie whose every thread is gone: a leader alone in
    state Z may still have live threads. The status is /proc/PID/stat's exit_code (field
    52), which the kernel shows only to a reader allowed to trace the process."""
    try:
        if len(os.listdir(f"/proc/{pid}/task")) != 1:
            return False, None
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()   # from the 3rd field on
        if fields[0] != b"Z":
            return False, None
        return True, (int(fields[49]) if _may_trace_any_process() else None)
    except (OSError, IndexError, ValueError):
        return False, None


_CAP_SYS_PTRACE = 19
_tracer: bool | None = None


def _may_trace_any_process() -> bool:
    """This monitor holds CAP_SYS_PTRACE (a root monitor, as a rule)."""
    global _tracer
    if _tracer is None:
        _tracer = False
        try:
            with open("/proc/self/status", "rb") as status:
                for line in status:
                    if line.startswith(b"CapEff:"):
                        _tracer = bool(int(line.split()[1], 16) >> _CAP_SYS_PTRACE & 1)
        except (OSError, ValueError, IndexError):
            pass
    return _tracer


def _children_below(root: int) -> dict[int, list[int]]:
    """Every process below `root` (root included) -> its children, in the order found."""
    from .process_tree import children  # heavy (ctypes): loaded only where used

    tree, todo = {}, [root]
    while todo:
        pid = todo.pop()
        tree[pid] = children(pid)
        todo += tree[pid]
    return tree


def game_process(tree: dict[int, list[int]]) -> int | None:
    """The process that plays the game below a host (`_children_below`'s tree): the
    first found of those nested in the most PID namespaces (each game's PID 1, in a world
    of its own: harness/isolation/world.py), or, where games get no world, the first child
    of the zygote (its children come after it, and are no deeper)."""
    best, best_depth = None, -1
    for pid in _in_order_found(tree):
        depth = _pid_namespace_depth(pid)
        if depth > best_depth:
            best, best_depth = pid, depth
    return best


def _in_order_found(tree: dict[int, list[int]]) -> list[int]:
    return [child for children in tree.values() for child in children]


def _pid_namespace_depth(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"NSpid:"):
                    return len(line.split()) - 1
    except OSError:
        pass
    return -1
