def Lowercase(hist, score):
    return ["c", "d", "C"]
