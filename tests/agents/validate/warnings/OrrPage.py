"""Team: Orr, Paige"""


def OrrPage(hist, score):
    return ["C", "C", "C"]
