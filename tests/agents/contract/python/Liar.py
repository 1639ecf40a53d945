"""Contract agent: answers that are not three moves of C/D, a different one each call."""
BAD = [["C", "C"], ["C", "C", "X"], 42, ["C", "C", "C", "C"], None]


def Liar(hist, score):
    return BAD[len(hist) // 3 % len(BAD)]
