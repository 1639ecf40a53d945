"""Hostile: raises KeyboardInterrupt, as if someone pressed Ctrl-C."""


def Interrupter(hist, score):
    raise KeyboardInterrupt
