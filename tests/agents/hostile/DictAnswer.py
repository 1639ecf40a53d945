"""Hostile: answers a dict (iterating it would give three valid-looking keys)."""


def DictAnswer(hist, score):
    return {"C": 1, "D": 2, "c": 3}
