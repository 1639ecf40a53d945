"""Hostile: counts its games in Python's `builtins` module, which a reloaded module does not
reset, and plays all C in odd games, all D in even ones. Every game starts from a fresh
process, so it must see itself in its first game every time."""
import builtins


def GameCounter(hist, score):
    if not hist:
        builtins.pdharness_games = getattr(builtins, "pdharness_games", 0) + 1
    return ["C"] * 3 if builtins.pdharness_games % 2 else ["D"] * 3
