"""Hostile: raises on every call."""


def Thrower(hist, score):
    raise RuntimeError("hostile agent raising on purpose")
