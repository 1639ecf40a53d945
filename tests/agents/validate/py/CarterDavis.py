def helper(hist, score):
    return ["C", "C", "C"]
