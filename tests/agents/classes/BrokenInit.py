"""A class whose __init__ raises: a load error naming the class."""


class BrokenInit:
    def __init__(self):
        raise RuntimeError("no state for you")

    def move(self, hist, score):
        return ["C", "C", "C"]
