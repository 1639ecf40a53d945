"""Generous tit for tat, by Khosmood and Levinson (the example from the course text).

Answers each of the opponent's moves of the last turn with the same move, but forgives a
lone defection one time in three: noise flips moves, and two copies of plain tit for tat
punish each other's flips for ever.
"""
import random


def KhosmoodLevinson(hist, score):
    if not hist:
        return ["C", "C", "C"]
    last_turn = hist[-3:]
    answer = []
    for mine, theirs in last_turn:
        if theirs == "D" and random.random() < 1 / 3:
            answer.append("C")
        else:
            answer.append(theirs)
    return answer
