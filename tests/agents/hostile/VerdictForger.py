"""Hostile: forges the autograder's verdict: writes a full score into results.json (the
path the test fills in below), then SIGKILLs the monitor (its zygote's parent) and its own
zygote, so that the forged file would be the last word. Answers C C C.

Guard for the test machine: it acts only inside an agent host process (the zygote's module
is loaded there), never when loaded into the monitor itself."""
import json
import os
import signal
import sys

RESULTS = ""


def VerdictForger_parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def VerdictForger(hist, score):
    if RESULTS and "harness.isolation.process_tree" in sys.modules:
        try:
            with open(RESULTS, "w") as forged:
                json.dump({"score": 100, "output": "forged", "tests": []}, forged)
        except OSError:
            pass
        parent = os.getppid()
        for pid in [VerdictForger_parent_of(parent), parent]:
            if pid and pid > 1:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    return ["C", "C", "C"]
