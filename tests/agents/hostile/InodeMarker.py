"""Hostile: carries information from game to game in inodes its monitor's user owns, which
an agent owns too when that user is not root (the sandbox maps the agent's user to it):
the pipes every game inherits (its output, the game channel) and the harness's own files
(mounted read-only, but their write-life hint needs no write). Its first call reads them:
move 1 is D if an inherited pipe has the mode it sets, move 2 if a pipe's access time has
the nanoseconds it sets, move 3 if the harness's seccomp.py has the write-life hint it
sets (F_GET_RW_HINT); every call then sets them all (what it may not set, it leaves). A game
may change none of them (harness/isolation/seccomp.py): it plays the same in every game."""
import fcntl
import os
import stat
import struct
import sys

# the host's own package, which agents may not import (harness/agents/agent_imports.py),
# but whose modules they find in sys.modules, and whose files are where the host runs from
harness = sys.modules["harness"]
F_GET_RW_HINT, F_SET_RW_HINT = 1035, 1036
MODE, NANOSECONDS, HINT = 0o640, 777, 3
HARNESS_FILE = os.path.join(os.path.dirname(harness.__file__), "isolation", "seccomp.py")


def _pipes():
    for fd in range(16):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                yield fd
        except OSError:
            pass


def _hint(fd, new=None):
    try:
        if new is None:
            return struct.unpack("Q", fcntl.fcntl(fd, F_GET_RW_HINT, bytes(8)))[0]
        fcntl.fcntl(fd, F_SET_RW_HINT, struct.pack("Q", new))
    except OSError:
        return None


def InodeMarker_seen():
    pipes = [os.fstat(fd) for fd in _pipes()]
    fd = os.open(HARNESS_FILE, os.O_RDONLY)
    try:
        hinted = _hint(fd) == HINT
    finally:
        os.close(fd)
    return ["D" if any(stat.S_IMODE(p.st_mode) == MODE for p in pipes) else "C",
            "D" if any(p.st_atime_ns % 1000 == NANOSECONDS for p in pipes) else "C",
            "D" if hinted else "C"]


def InodeMarker_mark():
    for fd in _pipes():
        for change in (lambda: os.fchmod(fd, MODE),
                       lambda: os.utime(fd, ns=(10**18 + NANOSECONDS, 10**18))):
            try:
                change()
            except OSError:
                pass
    fd = os.open(HARNESS_FILE, os.O_RDONLY)
    try:
        _hint(fd, HINT)
    finally:
        os.close(fd)


def InodeMarker(hist, score):
    if not hist:
        InodeMarker.seen = InodeMarker_seen()
    InodeMarker_mark()
    return InodeMarker.seen
