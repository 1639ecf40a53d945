"""Majority rule with a memory, by Garcia and Nguyen.

Cooperates while the opponent has cooperated in most of its last 12 moves, defects while it
has not. Looks at a window, not the whole game, so an opponent that reforms is forgiven.
"""

WINDOW = 12


def GarciaNguyen(hist, score):
    recent = [theirs for _mine, theirs in hist[-WINDOW:]]
    if not recent:
        return ["C", "C", "C"]
    move = "C" if recent.count("C") >= recent.count("D") else "D"
    return [move, move, move]
