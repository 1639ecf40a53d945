"""A prober, by Adams and Brown.

Opens by testing the opponent with a defection. If it never retaliated, keep exploiting it
now and then; otherwise settle into tit for tat, move by move.
"""


def AdamsBrown(hist, score):
    turn = len(hist) // 3
    if turn == 0:
        return ["D", "C", "C"]
    theirs = [pair[1] for pair in hist]
    if turn <= 2:
        return theirs[-3:]
    retaliated = "D" in theirs[1:6]
    if not retaliated:
        return ["C", "C", "D"]
    return theirs[-3:]
