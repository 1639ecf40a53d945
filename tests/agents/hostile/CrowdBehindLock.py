"""Hostile (the agent's own time): more than the limit of its own computation in a call,
its own threads passed off as other programs' load.

Pinned with its helper threads to one CPU, it computes while they do (they hash outside
the GIL, so they compete with it for the CPU, not for the GIL): its main thread waits for
the CPU behind them. Well before the deadline it takes a lock the helpers need, and holds
it across the deadline: none of them is running or runnable when the monitor looks, and
a monitor that gives back the main thread's wait unless another task of the game is
runnable at that instant moves the deadline on by time its own helpers held the CPU.

It answers D D D only past LIMIT * 1.1 s of CPU in the call (tests/test_hostile_time.py).
"""
import hashlib
import os
import threading
import time

LIMIT = 0.5   # the per-call limit it is played at (tests/test_hostile_time.py)
HELPERS = 7
BLOCK = bytes(1 << 20)
_gate = threading.Lock()
_helpers = []


def _help():
    while True:
        with _gate:
            pass
        hashlib.sha256(BLOCK).digest()


def _start_helpers():
    _gate.acquire()
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})   # its threads inherit it
    for _ in range(HELPERS):
        helper = threading.Thread(target=_help, daemon=True)
        helper.start()
        _helpers.append(helper)


def CrowdBehindLock(hist, score):
    start, cpu = time.monotonic(), time.process_time()
    if not _helpers:
        _start_helpers()
    _gate.release()            # the helpers compute beside it ...
    while time.monotonic() - start < 0.8 * LIMIT:
        hashlib.sha256(BLOCK).digest()
    _gate.acquire()            # ... and are blocked on the lock as the deadline passes
    while time.process_time() - cpu < 1.1 * LIMIT:
        hashlib.sha256(BLOCK).digest()
    return ["D", "D", "D"]
