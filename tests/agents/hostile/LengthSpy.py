"""Hostile: learns the game length in its first game of a round (it writes how far it got
to a file in /tmp, its HOME) and in every later game defects on exactly the last turn,
which the rules keep secret. In the sandbox /tmp is emptied after every game."""
import os

NOTE = "/tmp/pdharness-length-spy"


def LengthSpy(hist, score):
    known = None
    if os.path.exists(NOTE):
        with open(NOTE) as note:
            known = int(note.read() or 0)
    if known and len(hist) + 1 == known:
        return ["D"] * 3
    if known is None or getattr(LengthSpy, "learning", False):
        LengthSpy.learning = True
        with open(NOTE, "w") as note:
            note.write(str(len(hist) + 1))
    return ["C"] * 3
