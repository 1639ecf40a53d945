"""Hostile: recognises validation by its first random draw. Were the contract games seeded
with a fixed, public seed, that draw would be the same in every validation, and an agent
could pass validation and misbehave in the tournament. This one only shows the draw it saw
(in its exception's message), so a test can see that it changes from one validation to the
next and repeats when `validate --seed` replays."""
import random


def ValidationSpotter(hist, score):
    raise RuntimeError(f"my first draw was {random.random()!r}")
