def Liar(hist, score):
    answers = [["C", "C"], ["X", "C", "D"], None, {"C": 1}, ["C", "C", "C", "C"]]
    return answers[len(hist) // 3 % len(answers)]
