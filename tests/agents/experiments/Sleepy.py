import random
import time


def Sleepy(hist, score):
    """Thinks for a few milliseconds a turn, so a recorded run lasts long enough to be
    stopped mid-way; otherwise a noisy tit for tat."""
    time.sleep(0.004)
    if not hist:
        return ["C", "C", "C"]
    last = hist[-1][1]
    return [last, last, "C" if random.random() < 0.8 else "D"]
