"""Hostile: carries information from game to game in the descriptors every game inherits
from its host (/dev/null on fd 0, the pipes of its output and of the game channel): what
is set on one is set on the open file description or the pipe all games share. Its first
call reads them: move 1 is D if one has a signal or owner set for O_ASYNC (F_GETSIG,
F_GETOWN), move 2 if one has O_NONBLOCK, O_APPEND or O_ASYNC, move 3 if a pipe has the size
it sets itself; every call then sets them all (what it may not set, it leaves). A game may
change none of them (harness/isolation/seccomp.py): it plays the same in every game."""
import fcntl
import os
import struct

F_SETSIG, F_GETSIG, F_SETPIPE_SZ, F_GETPIPE_SZ = 10, 11, 1031, 1032
FIONBIO, FIOASYNC = 0x5421, 0x5452
FLAGS = os.O_NONBLOCK | os.O_APPEND | getattr(os, "O_ASYNC", 0o20000)
SIZE = 1 << 18


def FdFlagger_seen():
    signalled = flagged = sized = False
    for fd in range(16):
        try:
            status = fcntl.fcntl(fd, fcntl.F_GETFL)
        except OSError:
            continue
        flagged |= bool(status & FLAGS)
        signalled |= fcntl.fcntl(fd, F_GETSIG) != 0 or fcntl.fcntl(fd, fcntl.F_GETOWN) != 0
        try:
            sized |= fcntl.fcntl(fd, F_GETPIPE_SZ) == SIZE
        except OSError:
            pass
    return signalled, flagged, sized


def FdFlagger_set():
    for fd in range(16):
        for command, value in ((F_SETSIG, 17), (F_SETPIPE_SZ, SIZE)):
            try:
                fcntl.fcntl(fd, command, value)
            except OSError:
                pass
        for request in (FIONBIO, FIOASYNC):
            try:
                fcntl.ioctl(fd, request, struct.pack("i", 1))
            except OSError:
                pass
    try:   # fd 0 only: the game channel non-blocking would break its own next game
        fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | FLAGS)
    except OSError:
        pass


def FdFlagger(hist, score):
    if not hist:
        FdFlagger.seen = FdFlagger_seen()
    FdFlagger_set()
    return ["D" if bit else "C" for bit in FdFlagger.seen]
