"""Hostile: SIGKILLs its parent, its parent's parent and process 1. Where games are plain
forks its grandparent is the monitor (its parent is its own host's zygote); in a game's
world (harness/isolation/world.py) it is process 1 of a PID namespace of its own, has no parent in
sight and no /proc to find one: it reaches nothing.

Guard for the test machine: it only acts inside an agent host process (the zygote's module
is loaded there, never in the monitor), not when loaded into the monitor itself
(`--isolation none`), where its parent would be the user's shell."""
import os
import signal
import sys


def ParentKiller_parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def ParentKiller(hist, score):
    if "harness.isolation.process_tree" in sys.modules:
        parent = os.getppid()
        # the grandparent first: this process dies with its parent (the zygote)
        for pid in [ParentKiller_parent_of(parent), 1, parent]:
            if not pid:
                continue
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError as error:
                print(f"ParentKiller: kill({pid}) failed: {error}", file=sys.stderr)
    return ["C", "C", "C"]
