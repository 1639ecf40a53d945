import time


def Hanger(hist, score):
    if len(hist) >= 3:      # answers the first turn, then never again
        while True:
            time.sleep(1)
    return ["C", "C", "C"]
