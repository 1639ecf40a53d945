def MunozSmithJones(hist, score):
    return ["C", "C", "C"]
