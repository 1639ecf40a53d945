import random


def Moody(hist, score):
    """Cooperates while ahead, defects while behind, with its own random streak."""
    mine, theirs = score
    if mine >= theirs:
        return ["C", "C", random.choice("CD")]
    return ["D", random.choice("CD"), "D"]
