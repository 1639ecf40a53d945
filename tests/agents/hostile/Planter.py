"""Hostile: writes files beside its own file (a new agent, even), in /tmp and in the working
folder. Answers D on a move when that write worked: move 1 beside itself, move 2 /tmp,
move 3 the working folder."""
import os

PLANTED_AGENT = "def Planted(hist, score):\n    return ['D', 'D', 'D']\n"
TMP_MARKER = "/tmp/pdharness-hostile-planted"
CWD_MARKER = "pdharness-hostile-planted"


def _write(path, text):
    try:
        with open(path, "w") as out:
            out.write(text)
        return True
    except OSError:
        return False


def Planter(hist, score):
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Planted.py")
    return ["D" if _write(beside, PLANTED_AGENT) else "C",
            "D" if _write(TMP_MARKER, "planted") else "C",
            "D" if _write(os.path.join(os.getcwd(), CWD_MARKER), "planted") else "C"]
