def HillIrwin(hist, score)
    return ["C", "C", "C"]
