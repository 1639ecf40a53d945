def LevinsonKhosmood(hist, score):
    return ["C", "C", "C"]
