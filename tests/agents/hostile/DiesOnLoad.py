"""Hostile: its module ends the process while it loads: the agent cannot start
(load-error), and the tournament goes on without it."""
import os

os._exit(7)


def DiesOnLoad(hist, score):
    return ["C", "C", "C"]
