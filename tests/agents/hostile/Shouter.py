"""Hostile: prints megabytes per call to stdout and stderr, some of it shaped like the
host's protocol, then answers C C C."""
import os
import sys

LINE = "MOVES DDD " + "x" * 1000 + "\n"


def Shouter(hist, score):
    print("READY\nMOVES DDD\n0123456789abcdef MOVES DDD")
    sys.stdout.write(LINE * 2048)              # about 2 MB
    sys.stderr.write(LINE * 2048)
    sys.stdout.flush()
    os.write(1, b"MOVES DDD\n" * 1000)
    os.write(2, b"x" * 100_000)                 # no newline at all
    return ["C", "C", "C"]
