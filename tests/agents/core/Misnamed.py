def SomethingElse(hist, score):
    return ["C", "C", "C"]
