"""Hostile: sleeps far past any per-call time limit."""
import time


def Sleeper(hist, score):
    time.sleep(3600)
    return ["C", "C", "C"]
