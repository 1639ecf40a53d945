"""Hostile: answers numbers: an int, a float, a list of ints."""


def NumberAnswer(hist, score):
    return [42, 3.0, [1, 2, 3]][len(hist) // 3 % 3]
