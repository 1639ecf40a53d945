"""An agent written as a class: a fresh instance every game, its state in the instance.
Tit for tat that counts the opponent's defections and turns grim after three."""


class ClassyPerson:
    def __init__(self):
        self.defections = 0

    def move(self, hist, score):
        if hist:
            self.defections += sum(1 for _mine, theirs in hist[-3:] if theirs == "D")
        if self.defections >= 3:
            return ["D", "D", "D"]
        if not hist:
            return ["C", "C", "C"]
        return [hist[-3][1], hist[-2][1], hist[-1][1]]
