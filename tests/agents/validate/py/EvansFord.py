def EvansFord(hist, score):
    return ["C", "C", "C"]


def GreenHill(hist, score):
    return ["D", "D", "D"]
