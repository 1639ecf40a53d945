"""Hostile: SIGKILLs every process it can see, then every process it may signal (kill -1).

Guard for the test machine: it only acts inside a PID namespace of its own: a game's world
(harness/isolation/world.py), where it is process 1 itself and sees nothing else, or a bubblewrap
sandbox's, where process 1 is bubblewrap. Anywhere else, as root, `kill(-1, SIGKILL)`
would end every process on the machine."""
import os
import signal
import sys


def Massacre(hist, score):
    try:
        with open("/proc/1/cmdline", "rb") as cmdline:
            in_sandbox = cmdline.read().split(b"\0")[0].endswith(b"bwrap")
    except OSError:
        in_sandbox = False
    in_sandbox = in_sandbox or os.getpid() == 1
    if not in_sandbox:
        print("Massacre: not in a sandbox's PID namespace, refusing", file=sys.stderr)
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
