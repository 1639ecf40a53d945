"""Contract agent: answers 2.5 s late, ten times the suite's limit."""
import time


def Sleeper(hist, score):
    time.sleep(2.5)
    return ["C", "C", "C"]
