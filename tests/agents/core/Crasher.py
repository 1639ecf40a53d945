import os


def Crasher(hist, score):
    if len(hist) >= 6:      # dies on its third call of every game
        os._exit(3)
    return ["D", "D", "D"]
