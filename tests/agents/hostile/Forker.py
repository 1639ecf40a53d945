"""Hostile: a fork bomb (bounded, for the test machine's sake): as many spinning children
as it may start, up to 200. Answers D on move 1 when it got more than 40 of them (past the
32 processes an agent may have), D on move 2 when it got any, C otherwise.

Guard for the test machine: it only forks inside a PID namespace of its own, where the
children die with it: a game's world (harness/isolation/world.py: it is process 1 itself) or a
bubblewrap sandbox's (process 1 is bubblewrap)."""
import os
import sys
import time


def Forker(hist, score):
    try:
        with open("/proc/1/cmdline", "rb") as cmdline:
            in_sandbox = cmdline.read().split(b"\0")[0].endswith(b"bwrap")
    except OSError:
        in_sandbox = False
    in_sandbox = in_sandbox or os.getpid() == 1
    if not in_sandbox:
        print("Forker: not in a sandbox's PID namespace, refusing", file=sys.stderr)
        return ["C", "C", "C"]
    started = 0
    try:
        while started < 200:
            if os.fork() == 0:
                while True:
                    time.sleep(0.01)
            started += 1
    except OSError as error:
        print(f"Forker: fork failed after {started}: {error}", file=sys.stderr)
    return ["D" if started > 40 else "C", "D" if started else "C", "C"]
