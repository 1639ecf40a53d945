"""Hostile: writes replies straight into the host's protocol pipe (found among its descriptors),
without the secret token, and a line far over the protocol's 4096-byte limit to stdout."""
import os
import stat


def Forger(hist, score):
    for fd in range(3, 1024):   # its descriptors, found without /proc
        try:
            if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, b"deadbeefdeadbeef MOVES DDD\nMOVES DDD\n")
        except OSError:
            pass
    os.write(1, b"M" * 10000 + b"\n")
    return ["C", "C", "C"]
