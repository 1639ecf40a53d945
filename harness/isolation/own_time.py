"""A call's own time: the time since it was asked, less what its game's process spent
waiting for a CPU that other work held.

The time limit is the agent's: on a machine that other programs load (a grading server, a
CI runner beside another suite, a laptop), a call that needs 20 ms of CPU can take a
second of wall time queued behind them, and an honest agent must not lose its turn for
that. The kernel counts, per thread, the time it was runnable but not running
(/proc/PID/schedstat, second field); a call's deadline is moved on by what the game's
process waited so, up to OWN_TIME_CAP times the limit in all. A call that sleeps, blocks or
waits for something else is charged every second of it, as before.

Read only when a deadline passes, so a call that answers in time costs nothing here. The
game's process is found below the host (harness/isolation/world.py): the first of the deepest
processes in PID namespaces (each game's PID 1), or, where games get no world, the first
child of the zygote. The wait counted is its whole life's (it is fresh every game): a few
milliseconds more than the call's own, and never more than the cap. Where /proc does not
show it (another `hidepid`, another kernel), nothing is credited: wall time, as before.

An agent could make its process wait on purpose, behind threads or children of its own
that keep the CPU busy, and so stretch every call to the cap (a tournament five times
longer). Such a wait is its own doing: when any other task of the game is running or
runnable as the deadline passes, nothing is given back.

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

# A call's wall time never exceeds this many times the limit. It bounds what an agent that
# computes forever costs a loaded machine (the limit's worth of its own CPU can take many
# times that in wall time there), and leaves an honest call room at a load of ~10 a core.
OWN_TIME_CAP = 5
_NS_PER_SECOND = 1e9


def at_deadline(host_pid: int) -> tuple[float, int | None]:
    """(how long the current game's process below `host_pid` was runnable but not
    running, in seconds; its wait status if it is dead). The seconds are 0.0 when they
    cannot be told, or when the game competes with itself."""
    below = _children_below(host_pid)
    pid = game_process(below)
    if pid is None:
        return 0.0, None
    dead, status = _death(pid)
    if dead:
        # its status when /proc tells it; else the wait is for the zygote's DIED, our own
        # code's report, however long a loaded machine keeps it from a CPU
        return (0.0, status) if status is not None else (math.inf, None)
    if _competes_with_itself(pid, below):
        return 0.0, None
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as stats:
            fields = stats.read().split()
        return int(fields[1]) / _NS_PER_SECOND, None
    except (OSError, IndexError, ValueError):
        return 0.0, None


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
    """Every process below `root` (root included) -> its children, in the order found:
    one walk of /proc serves both questions below."""
    from .process_tree import children

    tree, todo = {}, [root]
    while todo:
        pid = todo.pop()
        tree[pid] = children(pid)
        todo += tree[pid]
    return tree


def game_process(tree: dict[int, list[int]]) -> int | None:
    """The process that plays the game below a host (`_children_below`'s tree): the
    first found of those nested in the most PID namespaces (its children come after it,
    and are no deeper)."""
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


def _competes_with_itself(game_pid: int, tree: dict[int, list[int]]) -> bool:
    """Another thread or process of the game is on a CPU or waiting for one."""
    family, todo = [], [game_pid]
    while todo:
        pid = todo.pop()
        family.append(pid)
        todo += tree.get(pid, [])
    for pid in family:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            if pid == game_pid and task == str(game_pid):
                continue   # the game's own thread: its wait is what is measured
            if _task_state(pid, task) == b"R":
                return True
    return False


def _task_state(pid: int, task: str) -> bytes:
    try:
        with open(f"/proc/{pid}/task/{task}/stat", "rb") as stat:
            # "PID (COMM) STATE ...": COMM may hold spaces and parentheses
            return stat.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return b""
