def Broken(hist, score)
    return ["C", "C", "C"]
