"""Team: Pavlov"""


def Pavlov(hist, score):
    return ["C", "C", "C"]
