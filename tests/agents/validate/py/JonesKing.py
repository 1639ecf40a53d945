RATE = 1 / 0


def JonesKing(hist, score):
    return ["C", "C", "C"]
