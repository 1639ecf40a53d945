"""Hostile: calls sys.exit, hoping to end the process that calls it."""
import sys


def SysExiter(hist, score):
    sys.exit(0)
