"""Raises on the first call of every game (hist is empty) and defects afterwards: its first
turn is always played as the default answer, C C C, which may well win it the tournament.
The result must say so."""


def FirstCallRaiser(hist, score):
    if not hist:
        raise ValueError("no history yet")
    return ["D", "D", "D"]
