def LeeMoore(hist, score):
    return ["C", "X", "D"] if hist else ["C", "C", "C"]
