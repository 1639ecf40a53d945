"""Hostile: patches `random` (its own copy and the real module) to bend other agents' luck."""
import random
import sys

random.random = lambda: 0.0
random.randint = lambda a, b: a
random.choice = lambda seq: seq[0]
random.seed = lambda *args, **kwargs: None
real = sys.modules.get("random")
if real is not None:
    real.random = lambda: 0.0
    real.seed = lambda *args, **kwargs: None
    real.Random.random = lambda self: 0.0


def RandomPatcher(hist, score):
    return ["D", "D", "D"]
