"""Hostile: raises SystemExit and KeyboardInterrupt directly, on alternate calls."""


def SystemExitRaiser(hist, score):
    if len(hist) % 2:
        raise KeyboardInterrupt
    raise SystemExit(3)
