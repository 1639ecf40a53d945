"""Hostile: answers None."""


def NoneAnswer(hist, score):
    return None
