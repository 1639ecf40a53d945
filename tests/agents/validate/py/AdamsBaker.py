def AdamsBrown(hist, score):
    return ["C", "C", "C"]
