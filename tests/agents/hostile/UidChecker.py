"""Hostile: checks whether it runs as root (the monitor's user on a grading server), and
whether it can write a file where only root may (the folder named below, which the test
fills in). Move 1 D when its user id is 0, move 2 D when the write succeeded, move 3 C."""
import os

ROOT_ONLY = ""


def UidChecker(hist, score):
    wrote = False
    if ROOT_ONLY:
        try:
            with open(os.path.join(ROOT_ONLY, "forged.json"), "w") as forged:
                forged.write('{"score": 100}')
            wrote = True
        except OSError:
            pass
    return ["D" if 0 in os.getresuid() else "C", "D" if wrote else "C", "C"]
