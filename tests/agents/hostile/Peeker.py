"""Hostile: looks for other processes (its opponent's host, the monitor) to read their
command lines and memory. Answers D D D when it can see any process outside its sandbox."""
import os


def _visible():
    mine = {os.getpid(), os.getppid(), 1}
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in mine:
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    found.append(cmdline.read().replace(b"\0", b" ")[:200])
            except OSError:
                pass
    return found


def Peeker(hist, score):
    return ["D", "D", "D"] if _visible() else ["C", "C", "C"]
