def ParkQuinn(hist, score):
    # copies their last move, but forgets that hist is empty on the first call
    return [hist[-1][1]] * 3
