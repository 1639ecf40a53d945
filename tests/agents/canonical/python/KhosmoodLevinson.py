"""The strategy of lisp/KhosmoodLevinson.lisp, in Python (tests/test_canonical_names.py)."""


def KhosmoodLevinson(hist, score):
    if not hist:
        return ["C", "C", "C"]
    theirs = hist[-1][1]
    return ["C" if score[0] > score[1] else theirs, theirs, "D" if len(hist) % 2 else "C"]
