"""Hostile (the agent's own time): more than the limit of its own computation in a call,
its own child processes passed off as other programs' load.

It forks children pinned with it to one CPU that compute beside it, so its process waits
for the CPU behind them; well before the deadline it stops them (SIGSTOP: not running,
not runnable, when the monitor looks) and goes on alone; it lets them go on at its next
call. They count their CPU time in memory shared with it (the agent's /proc is empty).

It answers D D D only past LIMIT * 1.1 s of CPU in the call (tests/test_hostile_time.py).
Where forking is denied (no cgroup holds an agent's processes together) it raises.
"""
import mmap
import os
import signal
import struct
import time

LIMIT = 0.5   # the per-call limit it is played at (tests/test_hostile_time.py)
CHILDREN = 7
LIFETIME = 30.0   # a child that outlives its game somehow still ends
_shared = mmap.mmap(-1, 8 * CHILDREN)
_children = []


def _compute(slot):
    ends = time.monotonic() + LIFETIME
    while time.monotonic() < ends:
        for _ in range(20000):
            pass
        struct.pack_into("d", _shared, 8 * slot, time.process_time())
    os._exit(0)


def _their_cpu():
    return sum(struct.unpack_from("d", _shared, 8 * slot)[0] for slot in range(CHILDREN))


def CrowdOfStoppedChildren(hist, score):
    start, cpu = time.monotonic(), time.process_time()
    if not _children:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})   # its children inherit it
        for slot in range(CHILDREN):
            pid = os.fork()
            if pid == 0:
                _compute(slot)
            _children.append(pid)
    else:
        for pid in _children:
            os.kill(pid, signal.SIGCONT)
    before = _their_cpu()
    while time.monotonic() - start < 0.8 * LIMIT:
        for _ in range(20000):
            pass
    for pid in _children:       # stopped as the deadline passes
        os.kill(pid, signal.SIGSTOP)
    while time.process_time() - cpu + _their_cpu() - before < 1.1 * LIMIT:
        for _ in range(20000):
            pass
    return ["D", "D", "D"]
