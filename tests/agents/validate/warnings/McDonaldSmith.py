def McDonaldSmith(hist, score):
    return ["C", "C", "C"]
