import random
from random import choice


def Gambler(hist, score):
    return [choice("CD"), "C" if random.random() < 0.3 else "D", random.choice(["C", "D"])]
