def khosmood_levinson(hist, score):
    return ["C", "C", "C"]
