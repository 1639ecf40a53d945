"""A ladder's ratings: openskill's Plackett-Luce model over every recorded game, in one fixed
order, so the ratings are a function of the record alone (never of which game finished
first, how many --jobs played them, or whether a pass was killed and finished later).

A game is a two-player match ranked by its score (a tie ranks both alike). The order: by
the pass in which the pair became owed (the later of its two versions' first pass), then
by the two agents' canonical names and versions, then the game's number. A rating belongs
to an agent, not a version: a resubmission goes on from its earlier rating, as a ladder's
players' do. openskill comes with the optional extra `pdharness[ladder]` and is imported
only here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.core.errors import HarnessError


@dataclass
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate the board sorts by (mu - 3 sigma)."""
        return self.mu - 3 * self.sigma


@dataclass
class Rated:
    """Each agent's rating now, and after each pass that changed it."""

    now: dict[str, Rating] = field(default_factory=dict)          # canonical name -> rating
    history: dict[str, list[tuple[int, Rating]]] = field(default_factory=dict)


def model():
    try:
        from openskill.models import PlackettLuce  # optional: openskill may not be installed
    except ImportError:
        raise HarnessError("the ladder's ratings need openskill: pip install "
                           "'pdharness[ladder]'") from None
    return PlackettLuce()


def rate(games, names: list[str]) -> Rated:
    """GAMES: (order key, owed_in pass, canonical a, canonical b, score a, score b), any
    order; NAMES: every agent's canonical name (an agent with no game keeps the prior)."""
    plackett = model()
    ratings = {name: plackett.rating(name=name) for name in names}
    rated = Rated()
    last_pass = None
    for _key, owed_in, a, b, score_a, score_b in sorted(games, key=lambda game: game[0]):
        if last_pass is not None and owed_in != last_pass:
            _snapshot(rated, ratings, last_pass)
        last_pass = owed_in
        first, second = ratings[a], ratings[b]
        [[first], [second]] = plackett.rate([[first], [second]], scores=[score_a, score_b])
        ratings[a], ratings[b] = first, second
    if last_pass is not None:
        _snapshot(rated, ratings, last_pass)
    rated.now = {name: Rating(r.mu, r.sigma) for name, r in ratings.items()}
    return rated


def _snapshot(rated: Rated, ratings, number: int) -> None:
    for name, r in ratings.items():
        points = rated.history.setdefault(name, [])
        now = Rating(r.mu, r.sigma)
        if not points or (points[-1][1].mu, points[-1][1].sigma) != (now.mu, now.sigma):
            points.append((number, now))
