def Checker(hist, score):
    """Fails loudly if hist and score ever disagree (the worked example of docs/rules.md)."""
    points = {("C", "C"): (3, 3), ("C", "D"): (0, 5), ("D", "C"): (5, 0), ("D", "D"): (1, 1)}
    mine = sum(points[tuple(pair)][0] for pair in hist)
    theirs = sum(points[tuple(pair)][1] for pair in hist)
    if [mine, theirs] != list(score):
        raise AssertionError(f"score {score} but hist says {[mine, theirs]}")
    return ["D", "C", "D"]
