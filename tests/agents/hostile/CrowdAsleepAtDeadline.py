"""Hostile (the agent's own time): more than the limit of its own computation in a call,
its own threads passed off as other programs' load, with no lock: its helper threads,
pinned with it to one CPU, compute beside it and sleep only in a window around the
deadline, when the monitor looks; then they compute again.

It answers D D D only past LIMIT * 1.1 s of CPU in the call (tests/test_hostile_time.py).
"""
import hashlib
import os
import threading
import time

LIMIT = 0.5   # the per-call limit it is played at (tests/test_hostile_time.py)
HELPERS = 7
BLOCK = bytes(1 << 20)
ASLEEP = (0.8 * LIMIT, 1.25 * LIMIT)   # from the call's start: the deadline is inside
_call = {"start": None}
_helpers = []


def _help():
    while True:
        start = _call["start"]
        if start is None:
            time.sleep(0.01)
            continue
        since = time.monotonic() - start
        if ASLEEP[0] <= since < ASLEEP[1]:
            time.sleep(ASLEEP[1] - since)
        hashlib.sha256(BLOCK).digest()


def CrowdAsleepAtDeadline(hist, score):
    start, cpu = time.monotonic(), time.process_time()
    _call["start"] = start
    if not _helpers:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})   # its threads inherit it
        for _ in range(HELPERS):
            helper = threading.Thread(target=_help, daemon=True)
            helper.start()
            _helpers.append(helper)
    while time.process_time() - cpu < 1.1 * LIMIT:
        hashlib.sha256(BLOCK).digest()
    _call["start"] = None
    return ["D", "D", "D"]
