"""Round robins and elimination (docs/rules.md, "Rounds and elimination" and "The result"). Pure functions."""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from itertools import combinations

from harness.core import seeds
from harness.core.horizons import geometric_length
from harness.core.rules import GameLength


@dataclass(frozen=True)
class GameJob:
    round: int
    a: str          # sorts first (seeds.name_order)
    b: str
    length: int
    seed: int


def draw_length(tournament_seed: int, round_number: int, length: GameLength) -> int:
    """One game length per round, uniform over Lmin..Lmax inclusive (with another horizon,
    the fixed length or the geometric cap: what the round records as its length)."""
    if length.horizon != "uniform":
        return length.high
    return random.Random(seeds.length_seed(tournament_seed, round_number)).randint(
        length.low, length.high)


def game_length(game_seed: int, length: GameLength) -> int:
    """The length of a game that belongs to no round (a ladder's): drawn from its own seed
    by the course's horizon, as a round draws its one length (`draw_length`) and a
    geometric game its own (`round_robin`)."""
    if length.horizon == "geometric":
        assert length.stop_prob is not None  # a geometric horizon has one (rules.GameLength)

        return geometric_length(game_seed, length.stop_prob, length.high)
    if length.horizon != "uniform":
        return length.high
    return random.Random(seeds.derive(game_seed, "length")).randint(length.low, length.high)


def round_robin(names, round_number: int, game_length: int, tournament_seed: int,
                length: GameLength | None = None):
    """Every remaining agent against every other once; no self-play. With a geometric
    horizon each game draws its own length from its seed, capped at `game_length`."""
    jobs = [GameJob(round_number, a, b, game_length,
                    seeds.game_seed(tournament_seed, round_number, a, b))
            for a, b in combinations(sorted(names, key=seeds.name_order), 2)]
    if length is not None and length.horizon == "geometric":
        assert length.stop_prob is not None  # a geometric horizon has one (rules.GameLength)

        jobs = [replace(job, length=geometric_length(job.seed, length.stop_prob,
                                                     game_length)) for job in jobs]
    return jobs


def round_scores(names, games) -> dict[str, int]:
    """Each agent's round score: the sum of its points over its games this round."""
    scores = {name: 0 for name in names}
    for game in games:
        scores[game.a] += game.score[0]
        scores[game.b] += game.score[1]
    return scores


def lowest_scorers(scores: dict[str, int]) -> list[str]:
    """The agents to drop: all of those with the lowest round score; none when all tie
    (they are co-winners)."""
    if not scores:
        return []
    low = min(scores.values())
    dropped = sorted(name for name, score in scores.items() if score == low)
    return [] if len(dropped) == len(scores) else dropped
