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


class _Seen:
    """The game so far, flattened move by move, kept up to date incrementally: a built-in
    costs O(1) a move however long the game, which keeps `--isolation none` fast."""

    __slots__ = ("mine", "theirs", "their_defections")

    def __init__(self):
        self.mine, self.theirs = [], []
        self.their_defections = [0]  # their_defections[i]: D's among theirs[:i], as asked

    def observe(self, my_moves: str, their_moves: str) -> None:
        self.mine.extend(my_moves)
        self.theirs.extend(their_moves)

    def defections_before(self, index):
        """D's among theirs[:index]; counted on the first ask (few built-ins count them),
        from where the last ask left off."""
        theirs, counts = self.theirs, self.their_defections
        index = min(index, len(theirs))
        while len(counts) <= index:
            counts.append(counts[-1] + (theirs[len(counts) - 1] == "D"))
        return counts[index] if index > 0 else 0


class Strategy:
    """A built-in for one game: told what was played, in order (`observe(mine, theirs)`,
    a turn's moves or fewer), it answers the next turn's moves (`answer()`); `step(last)`
    does both, `last` being the last turn's (mine, theirs), None at the first."""

    def __init__(self, choose, rng, moves_per_turn: int):
        seen = _Seen()
        mine, k = seen.mine, moves_per_turn
        if k == 1:   # a --isolation none run's hot path: appends, and a turn in one frame
            mine_append, theirs_append = mine.append, seen.theirs.append

            def observe(my_moves: str, their_moves: str) -> None:
                mine_append(my_moves)
                theirs_append(their_moves)

            def answer() -> str:
                return choose(seen, len(mine), rng, 1)

            def step(last) -> str:
                if last is not None:
                    mine_append(last[0])
                    theirs_append(last[1])
                return choose(seen, len(mine), rng, 1)
        else:
            observe = seen.observe

            def answer() -> str:
                start = len(mine)
                return "".join([choose(seen, start + j, rng, k) for j in range(k)])

            def step(last) -> str:
                if last is not None:
                    observe(last[0], last[1])
                return answer()

        # closures, not methods: a built-in's turn is a few attribute loads fewer
        self.observe: Callable[[str, str], None] = observe
        self.answer: Callable[[], str] = answer
        self.step: Callable[[tuple[str, str] | None], str] = step


def as_agent_function(strategy: Strategy):
    """The same strategy as an ordinary `(hist, score)` agent. Its hist is move by move and
    may have grown by any number of moves since the last call: each is observed in turn."""
    fed = 0

    def agent(hist, score):
        nonlocal fed
        observe = strategy.observe
        for mine, theirs in hist[fed:]:
            observe(mine, theirs)
        fed = len(hist)
        return list(strategy.answer())
    return agent


class Builtin:
    """A built-in agent: `strategy(rng, moves_per_turn)` starts one game of it, and calling
    it like any other agent factory gives its `(hist, score)` function. `draws`: whether
    it uses its random generator (one that never does is started without one: seeding a
    generator costs more than most built-ins' whole turn)."""

    def __init__(self, choose, doc: str, draws: bool = True):
        self.choose = choose
        self.__doc__ = doc
        self.draws = draws

    def strategy(self, rng, moves_per_turn: int) -> Strategy:
        return Strategy(self.choose, rng, moves_per_turn)

    def __call__(self, rng, moves_per_turn: int):
        return as_agent_function(self.strategy(rng, moves_per_turn))


def _per_move(choose, draws: bool = False):
    """From `choose(seen, n, rng, k) -> move`, where n is the index of the move being chosen
    (counting every move of the game) and k the moves per turn; `draws`: it uses rng."""
    return Builtin(choose, choose.__doc__, draws)


def _fixed(move):
    def choose(seen, n, rng, k):
        return move
    return Builtin(choose, f"Always plays {move}.", draws=False)


def _lagged(hist_list, n, k):
    """The move a turn earlier than n, or None before the game."""
    index = n - k
    return hist_list[index] if index >= 0 else None


def _window(hist_list, n, k, size):
    """The (at most) `size` moves ending with the one a turn earlier than n."""
    end = n - k + 1
    return hist_list[max(0, end - size):max(0, end)]


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


def _antitfortat(seen, n, rng, k):
    """Cooperates first, then plays the opposite of the opponent's move one turn earlier."""
    last = _lagged(seen.theirs, n, k)
    return "C" if last is None else ("C" if last == "D" else "D")


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
    return "D" if _window(seen.theirs, n, k, 2) == ["D", "D"] else "C"


def _twotitsfortat(seen, n, rng, k):
    """Defects twice after each defection of the opponent (seen one turn earlier)."""
    return "D" if "D" in _window(seen.theirs, n, k, 2) else "C"


def _hardtitfortat(seen, n, rng, k):
    """Defects when the opponent defected in any of its three moves ending one turn earlier."""
    return "D" if "D" in _window(seen.theirs, n, k, 3) else "C"


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
    "random": _per_move(_random, draws=True),
    "titfortat": _per_move(_titfortat),
    "grudger": _per_move(_grudger),
    "pavlov": _per_move(_pavlov),
    "titfortwotats": _per_move(_titfortwotats),
    "alternator": _per_move(_alternator),
    "suspicioustitfortat": _per_move(_suspicious_titfortat),
    "twotitsfortat": _per_move(_twotitsfortat),
    "hardtitfortat": _per_move(_hardtitfortat),
    "bully": _per_move(_bully),
    "antitfortat": _per_move(_antitfortat),
    "winshiftlosestay": _per_move(_win_shift_lose_stay),
    "cyclerccd": _per_move(_cycler("CCD")),
    "cyclerddc": _per_move(_cycler("DDC")),
    "cyclercccd": _per_move(_cycler("CCCD")),
    "softmajority": _per_move(_soft_majority),
    "hardmajority": _per_move(_hard_majority),
    "forgiver": _per_move(_forgiver),
}

