"""Hostile: answers too few or too many moves, and an endless generator."""
import itertools


def WrongLength(hist, score):
    turn = len(hist) // 3
    return [["C", "C"], ["C"] * 4, "CCCCCC", [], itertools.repeat("D")][turn % 5]
