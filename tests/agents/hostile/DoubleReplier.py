"""Hostile: answers C C C, but first writes a well-formed `MOVES DDD` reply of its own into
the host's reply pipe, marked with the secret token (which /proc/self/environ still shows
after the host removed it from the environment): two replies to one request, the forged
one first. A monitor that takes the first marked line plays D D D for it."""
import fcntl
import os
import stat


def token():
    try:   # no /proc in a game's world (harness/isolation/world.py): then no token either
        with open("/proc/self/environ", "rb") as environ:
            for entry in environ.read().split(b"\0"):
                if entry.startswith(b"PDH_TOKEN="):
                    return entry[len(b"PDH_TOKEN="):]
    except OSError:
        pass
    return b""


def DoubleReplier(hist, score):
    for fd in range(3, 1024):   # its descriptors, found without /proc
        try:
            if (fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode)
                    and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY):
                os.write(fd, token() + b" MOVES DDD\n")
        except OSError:
            pass
    return ["C", "C", "C"]
