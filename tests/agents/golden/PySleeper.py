"""Golden: answers its second call of a game late (3 s, beyond the pin's 2 s limit) when its
opponent's first move was played as D and its own as C. A `timeout` in every mode: inside
the monitor (`none`) the late answer is discarded once it comes; in a process the process is
killed and replaced. It draws no random numbers, so a replaced process plays on as the
first would have."""
import time


def PySleeper(hist, score):
    if len(hist) == 3 and hist[0] == ("C", "D"):
        time.sleep(3)
    return ["C", "D", "D"]
