"""Answers every call late (0.4 s), but does answer: in the monitor's own process, where a call
cannot be interrupted, each is a timeout once it returns. Says on stdout when it is called."""
import time


def Dawdler(hist, score):
    print("Dawdler called")
    time.sleep(0.4)
    return ["C", "C", "C"]
