def Raiser(hist, score):
    if len(hist) % 2:
        raise ValueError("odd history")
    return ["C", "D", "C"]
