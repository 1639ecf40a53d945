"""Hostile: writes replies straight into the host's protocol pipe (found in /proc/self/fd),
without the secret token, and a line far over the protocol's 4096-byte limit to stdout."""
import os


def Forger(hist, score):
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                os.write(fd, b"deadbeefdeadbeef MOVES DDD\nMOVES DDD\n")
        except OSError:
            pass
    os.write(1, b"M" * 10000 + b"\n")
    return ["C", "C", "C"]
