"""Hostile: spins forever on every call (killed at the deadline, replaced, spins again)."""


def Spinner(hist, score):
    while True:
        pass
