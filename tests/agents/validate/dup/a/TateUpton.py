def TateUpton(hist, score):
    return ["C", "C", "C"]
