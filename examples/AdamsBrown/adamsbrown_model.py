"""The model of examples/AdamsBrown: per agent type it was trained against, the value of C
and D in every window of the last move pairs (a Q-table), and how often that type answered
D there. It plays the better move against the type whose answers so far are likeliest."""
import json
import math

MOVES_PER_TURN = 3


def _offset(m):
    return (4 ** m - 1) // 3


def _window(mine, theirs, end, memory):
    """The window of (at most `memory`) move pairs ending at index `end`, as a table index
    (pdharness's Memory-N order: my moves, then theirs, oldest first, D = 1)."""
    m = min(memory, end + 1) if end >= 0 else 0
    index = 0
    for moves in (mine, theirs):
        for position in range(end - m + 1, end + 1):
            index = index * 2 + (moves[position] == "D")
    return _offset(m) + index


class Model:
    def __init__(self, memory, q, replies):
        self.memory, self.q, self.replies = memory, q, replies

    @classmethod
    def read(cls, path):
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        return cls(data["memory"], data["q"], data["replies"])

    def likeliest(self, mine, theirs):
        """The type whose D-reply counts best explain the opponent's moves so far."""
        def log_likelihood(t):
            total = 0.0
            for i, move in enumerate(theirs):
                c, d = self.replies[t][_window(mine, theirs, i - MOVES_PER_TURN, self.memory)]
                p = (d + 1) / (c + d + 2)
                total += math.log(p if move == "D" else 1 - p)
            return total
        return max(range(len(self.q)), key=log_likelihood)

    def move(self, mine, theirs, n):
        """Move n of the game: the better action in the window that ends a turn earlier."""
        value_c, value_d = self.q[self.likeliest(mine, theirs)][
            _window(mine, theirs, n - MOVES_PER_TURN, self.memory)]
        return "D" if value_d > value_c else "C"
