"""Hostile: SIGKILLs its parent process (outside the sandbox: the monitor) and process 1.

Guard for the test machine: it only acts inside an agent host process, never when loaded
into the monitor itself (`--isolation none`), where its parent would be the user's shell."""
import os
import signal
import sys


def ParentKiller(hist, score):
    if os.path.basename(sys.argv[0]) == "host.py":
        for pid in {os.getppid(), 1}:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError as error:
                print(f"ParentKiller: kill({pid}) failed: {error}", file=sys.stderr)
    return ["C", "C", "C"]
