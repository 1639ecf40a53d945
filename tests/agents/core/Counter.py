CALLS = 0


def Counter(hist, score):
    """Cooperates on its first 5 calls ever, then defects: module state must not carry over
    from game to game, or its play would depend on which games came first."""
    global CALLS
    CALLS += 1
    return ["C"] * 3 if CALLS <= 5 else ["D"] * 3
