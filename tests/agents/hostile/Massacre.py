"""Hostile: SIGKILLs every process it can see, then every process it may signal (kill -1).

Guard for the test machine: it only acts inside its own PID namespace (it is process 2 or
3 there). Outside the sandbox, as root, `kill(-1, SIGKILL)` would end every process on the
machine: `process` isolation does not protect against that (see README)."""
import os
import signal
import sys


def Massacre(hist, score):
    if os.getpid() > 3:
        print("Massacre: not in a PID namespace of my own, refusing", file=sys.stderr)
        return ["D", "D", "D"]
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != me:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    return ["C", "C", "C"]
