def ReedShaw(hist, score):
    return ["c", "c", "d"]
