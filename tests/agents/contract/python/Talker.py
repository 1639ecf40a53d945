"""Contract agent: checks the shapes the contract promises a Python agent (hist a list of
(mine, theirs) tuples of the strings "C"/"D", score a list of two ints), prints what it
was shown, then lines that look like the host protocol, and answers C C D."""
import sys


def Talker(hist, score):
    if not isinstance(hist, list) or not isinstance(score, list) or len(score) != 2:
        raise TypeError(f"hist {type(hist)} and score {type(score)} are not lists of pairs")
    if not all(type(points) is int for points in score):
        raise TypeError(f"score holds {score!r}")
    for pair in hist:
        if type(pair) is not tuple or len(pair) != 2 or \
                not all(type(move) is str and move in ("C", "D") for move in pair):
            raise TypeError(f"hist holds {pair!r}")
    seen = " ".join(mine + theirs for mine, theirs in hist)
    print(f"SEEN [{seen}] [{score[0]} {score[1]}]", flush=True)
    print("MOVES DDD\nREADY\nINVALID fake", flush=True)
    print("MOVES DDD", file=sys.stderr, flush=True)
    return ("C", "C", "D")
