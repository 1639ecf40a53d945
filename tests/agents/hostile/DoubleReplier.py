"""Hostile: answers C C C, but first writes a well-formed `MOVES DDD` reply of its own into
the host's reply pipe, marked with the secret token (which /proc/self/environ still shows
after the host removed it from the environment): two replies to one request, the forged
one first. A monitor that takes the first marked line plays D D D for it."""
import fcntl
import os


def token():
    with open("/proc/self/environ", "rb") as environ:
        for entry in environ.read().split(b"\0"):
            if entry.startswith(b"PDH_TOKEN="):
                return entry[len(b"PDH_TOKEN="):]
    return b""


def DoubleReplier(hist, score):
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if (fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
                    and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY):
                os.write(fd, token() + b" MOVES DDD\n")
        except OSError:
            pass
    return ["C", "C", "C"]
