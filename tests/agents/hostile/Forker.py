"""Hostile: a fork bomb (bounded, for the test machine's sake): as many spinning children
as it may start, up to 200. Answers D D D when it got more than 40 of them.

Guard for the test machine: it only forks inside its own PID namespace, where the children
die with the sandbox."""
import os
import sys
import time


def Forker(hist, score):
    if os.getpid() > 3:
        print("Forker: not in a PID namespace of my own, refusing", file=sys.stderr)
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
    return ["D", "D", "D"] if started > 40 else ["C", "C", "C"]
