"""Hostile: signals another agent (FlockListener) with locks on a file every sandbox sees
read-only (/usr/bin/env): takes an flock, a POSIX read lock and an open-file-description
read lock when it loads, and holds them. Answers D on each move whose lock it got (move 1
flock, 2 POSIX, 3 OFD), C where the kernel refused."""
import fcntl
import struct

F_OFD_SETLK = 37
SHARED = open("/usr/bin/env", "rb")
DUPLICATE = open("/usr/bin/env", "rb")   # OFD locks belong to an open file description


def _tried(take):
    try:
        take()
        return "D"
    except OSError:
        return "C"


HELD = [_tried(lambda: fcntl.flock(SHARED, fcntl.LOCK_EX | fcntl.LOCK_NB)),
        _tried(lambda: fcntl.lockf(SHARED, fcntl.LOCK_SH | fcntl.LOCK_NB)),
        _tried(lambda: fcntl.fcntl(DUPLICATE, F_OFD_SETLK,
                                   struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 0, 0)))]


def FlockSignaller(hist, score):
    return list(HELD)
