"""Hostile: strings that compare equal to both C and D. On even turns the characters are
neither (invalid), on odd turns they are D pretending to be C (must play D)."""


class Chameleon_str(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return hash("C")

    def __str__(self):
        return "C"

    def upper(self):
        return "C"


def Chameleon(hist, score):
    if len(hist) // 3 % 2 == 0:
        return [Chameleon_str("Q")] * 3
    return [Chameleon_str("D")] * 3
