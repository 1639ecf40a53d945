"""Hostile: carries information from game to game in the folder of the terminals
(/dev/pts: the sandbox's, shared by all the games of its host, or the machine's under
`process`): listing it sets its access time, so `atime > mtime` says a game listed it
before. Move 1 is D if so (then it lists it), move 2 if /dev/pts/ptmx is there, move 3 if it
can open a terminal. Every game covers /dev/pts with an empty folder of its own
(harness/isolation/world.py): it plays the same in every game."""
import os


def PtySpy(hist, score):
    if not hist:
        try:
            folder = os.stat("/dev/pts")
            listed = folder.st_atime_ns > folder.st_mtime_ns
            os.listdir("/dev/pts")
        except OSError:
            listed = False
        try:
            os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
            opened = True
        except OSError:
            opened = False
        seen = [listed, os.path.exists("/dev/pts/ptmx"), opened]
        PtySpy.seen = ["D" if bit else "C" for bit in seen]
    return PtySpy.seen
