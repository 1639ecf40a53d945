"""Hostile (the agent's own time): more than the limit of its own computation in a call,
with processes outside its thread group that are not its children either: each forked
twice, its parent gone, an orphan adopted by whoever adopts them (the game's first
process in a world of its own, else the zygote). Pinned with it to one CPU, they compute
beside it, and sleep in a window around the deadline, when the monitor looks.

They read the call's start from memory shared with it, and count their CPU time there.
It answers D D D only past LIMIT * 1.1 s of CPU in the call (tests/test_hostile_time.py).
Where forking is denied (no cgroup holds an agent's processes together) it raises.
"""
import mmap
import os
import struct
import time

LIMIT = 0.5   # the per-call limit it is played at (tests/test_hostile_time.py)
ORPHANS = 7
ASLEEP = (0.8 * LIMIT, 1.25 * LIMIT)   # from the call's start: the deadline is inside
LIFETIME = 30.0   # an orphan that outlives its game somehow still ends
_shared = mmap.mmap(-1, 8 * (ORPHANS + 1))   # the call's start, then each orphan's CPU
_started = []


def _compute(slot):
    ends = time.monotonic() + LIFETIME
    while time.monotonic() < ends:
        start = struct.unpack_from("d", _shared, 0)[0]
        since = time.monotonic() - start
        if not start:
            time.sleep(0.01)
        elif ASLEEP[0] <= since < ASLEEP[1]:
            time.sleep(ASLEEP[1] - since)
        for _ in range(20000):
            pass
        struct.pack_into("d", _shared, 8 * (slot + 1), time.process_time())
    os._exit(0)


def _orphan(slot):
    pid = os.fork()
    if pid == 0:
        if os.fork() == 0:
            _compute(slot)
        os._exit(0)   # its child is an orphan now
    os.waitpid(pid, 0)


def _their_cpu():
    return sum(struct.unpack_from("d", _shared, 8 * (slot + 1))[0] for slot in range(ORPHANS))


def CrowdOfOrphans(hist, score):
    cpu = time.process_time()
    struct.pack_into("d", _shared, 0, time.monotonic())
    if not _started:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})   # the orphans inherit it
        for slot in range(ORPHANS):
            _orphan(slot)
        _started.append(True)
    before = _their_cpu()
    while time.process_time() - cpu + _their_cpu() - before < 1.1 * LIMIT:
        for _ in range(20000):
            pass
    struct.pack_into("d", _shared, 0, 0.0)
    return ["D", "D", "D"]
