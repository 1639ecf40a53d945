"""Contract agent: raises on every call."""


def Raiser(hist, score):
    raise ValueError("contract-raiser on purpose")
