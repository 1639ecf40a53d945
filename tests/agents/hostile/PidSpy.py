"""Hostile: carries information from game to game in process IDs. Every call starts and
joins threads (each takes an ID), so where games share a PID namespace the next game's
first process gets an ID that says how long the last game was. It plays the bits of the
IDs it can see on its first call: its own, its parent's, a new thread's, and the kernel's
last ID where /proc shows it. Every game starts in a world of its own (harness/isolation/world.py),
so it plays the same in every game."""
import os
import threading


def PidSpy_seen():
    ids = [os.getpid(), os.getppid()]
    thread = threading.Thread(target=lambda: ids.append(threading.get_native_id()))
    thread.start()
    thread.join()
    try:
        with open("/proc/sys/kernel/ns_last_pid") as last:
            ids.append(int(last.read()))
    except (OSError, ValueError):
        pass
    return sum(ids)


def PidSpy(hist, score):
    if not hist:
        PidSpy.seen = PidSpy_seen()
    for _ in range(len(hist) % 5 + 1):   # IDs used up by what happened in this game
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
    return ["D" if PidSpy.seen >> bit & 1 else "C" for bit in range(3)]
