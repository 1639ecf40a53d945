"""Contract agent: counts its calls in a global, which must start at 0 every game."""
calls = 0


def Stateful(hist, score):
    global calls
    calls += 1
    defects = min(calls - 1, 3)
    return ["D"] * defects + ["C"] * (3 - defects)
