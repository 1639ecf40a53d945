"""Built-in agents, usable by name anywhere an agent is expected.

Each is written for turns of several moves. Move n of the game (counting every move) answers
the opponent's move one turn earlier, n - moves_per_turn, so with one move per turn each
plays exactly the classic strategy of its name (as the Axelrod library defines it), and
with three it plays that strategy against the opponent's previous turn, position by
position. A factory gets the agent's private random generator and the moves per turn and
returns the `(hist, score)` function.
"""
from __future__ import annotations

from typing import Callable

Strategy = Callable[[list, list], list]


class _Seen:
    """The game so far, flattened move by move, kept up to date incrementally.

    Within a game hist only grows, so each call reads just the new pairs: a built-in costs
    O(1) a move however long the game, which keeps `--isolation none` fast.
    """

    __slots__ = ("mine", "theirs", "their_defections")

    def __init__(self):
        self.mine, self.theirs = [], []
        self.their_defections = [0]  # their_defections[i]: D's among theirs[:i]

    def update(self, hist):
        for pair in hist[len(self.mine):]:
            self.mine.append(pair[0])
            self.theirs.append(pair[1])
            self.their_defections.append(self.their_defections[-1] + (pair[1] == "D"))

    def defections_before(self, index):
        return self.their_defections[max(0, min(index, len(self.theirs)))]


def _per_move(choose):
    """A factory from `choose(seen, n, rng, k) -> move`, where n is the index of the move
    being chosen (counting every move of the game) and k the moves per turn."""

    def factory(rng, moves_per_turn):
        seen = _Seen()

        def agent(hist, score):
            seen.update(hist)
            start = len(seen.mine)
            return [choose(seen, start + j, rng, moves_per_turn)
                    for j in range(moves_per_turn)]
        return agent

    factory.__doc__ = choose.__doc__
    return factory


def _fixed(move):
    def factory(rng, moves_per_turn):
        answer = [move] * moves_per_turn
        return lambda hist, score: answer
    return factory


def _lagged(hist_list, n, k, back=0):
    """The move `back` moves before the one a turn earlier than n, or None before the game."""
    index = n - k - back
    return hist_list[index] if index >= 0 else None


def _titfortat(seen, n, rng, k):
    """Cooperates first, then copies the opponent's move one turn earlier."""
    return _lagged(seen.theirs, n, k) or "C"


def _suspicious_titfortat(seen, n, rng, k):
    """Defects first, then copies the opponent's move one turn earlier."""
    return _lagged(seen.theirs, n, k) or "D"


def _bully(seen, n, rng, k):
    """Defects first, then plays the opposite of the opponent's move one turn earlier."""
    last = _lagged(seen.theirs, n, k)
    return "D" if last is None else ("C" if last == "D" else "D")


def _grudger(seen, n, rng, k):
    """Cooperates until the opponent has defected once (as played), then defects forever."""
    return "D" if seen.defections_before(n - k + 1) else "C"


def _pavlov(seen, n, rng, k):
    """Win-stay lose-shift: cooperates when both played alike one turn earlier, else defects."""
    my_last, their_last = _lagged(seen.mine, n, k), _lagged(seen.theirs, n, k)
    if my_last is None:
        return "C"
    return "C" if my_last == their_last else "D"


def _win_shift_lose_stay(seen, n, rng, k):
    """Defects first; defects when both played alike one turn earlier, else cooperates."""
    my_last, their_last = _lagged(seen.mine, n, k), _lagged(seen.theirs, n, k)
    if my_last is None:
        return "D"
    return "D" if my_last == their_last else "C"


def _titfortwotats(seen, n, rng, k):
    """Defects only when the opponent defected twice in a row, ending one turn earlier."""
    last, before = _lagged(seen.theirs, n, k), _lagged(seen.theirs, n, k, back=1)
    return "D" if last == "D" and before == "D" else "C"


def _twotitsfortat(seen, n, rng, k):
    """Defects twice after each defection of the opponent (seen one turn earlier)."""
    last, before = _lagged(seen.theirs, n, k), _lagged(seen.theirs, n, k, back=1)
    return "D" if "D" in (last, before) else "C"


def _hardtitfortat(seen, n, rng, k):
    """Defects when the opponent defected in any of its three moves ending one turn earlier."""
    window = [_lagged(seen.theirs, n, k, back=b) for b in range(3)]
    return "D" if "D" in window else "C"


def _alternator(seen, n, rng, k):
    """Cooperates, defects, cooperates, ... move by move."""
    return "C" if n % 2 == 0 else "D"


def _cycler(pattern):
    def choose(seen, n, rng, k):
        return pattern[n % len(pattern)]
    choose.__doc__ = f"Plays {pattern} over and over, move by move."
    return choose


def _random(seen, n, rng, k):
    """Cooperates or defects with even chances, from its own seeded generator."""
    return "C" if rng.random() < 0.5 else "D"


def _majority(ties, seen, n, rng, k):
    played = max(0, min(n - k + 1, len(seen.theirs)))
    defections = seen.defections_before(played)
    cooperations = played - defections
    if cooperations == defections:
        return ties
    return "C" if cooperations > defections else "D"


def _soft_majority(seen, n, rng, k):
    """Cooperates while the opponent has cooperated at least as often as it defected."""
    return _majority("C", seen, n, rng, k)


def _hard_majority(seen, n, rng, k):
    """Defects while the opponent has defected at least as often as it cooperated."""
    return _majority("D", seen, n, rng, k)


def _forgiver(seen, n, rng, k):
    """Defects while the opponent has defected in more than a tenth of its moves."""
    played = max(0, min(n - k + 1, len(seen.theirs)))
    return "D" if seen.defections_before(played) * 10 > played else "C"


BUILTINS = {
    "cooperate": _fixed("C"),
    "defect": _fixed("D"),
    "random": _per_move(_random),
    "titfortat": _per_move(_titfortat),
    "grudger": _per_move(_grudger),
    "pavlov": _per_move(_pavlov),
    "titfortwotats": _per_move(_titfortwotats),
    "alternator": _per_move(_alternator),
    "suspicioustitfortat": _per_move(_suspicious_titfortat),
    "twotitsfortat": _per_move(_twotitsfortat),
    "hardtitfortat": _per_move(_hardtitfortat),
    "bully": _per_move(_bully),
    "winshiftlosestay": _per_move(_win_shift_lose_stay),
    "cyclerccd": _per_move(_cycler("CCD")),
    "cyclerddc": _per_move(_cycler("DDC")),
    "cyclercccd": _per_move(_cycler("CCCD")),
    "softmajority": _per_move(_soft_majority),
    "hardmajority": _per_move(_hard_majority),
    "forgiver": _per_move(_forgiver),
}
BUILTINS["cooperate"].__doc__ = "Always cooperates."
BUILTINS["defect"].__doc__ = "Always defects."


def describe_builtins() -> dict[str, str]:
    return {name: (factory.__doc__ or "").strip() for name, factory in BUILTINS.items()}
