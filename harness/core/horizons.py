"""How long games are (docs/rules.md, "Where the original text was ambiguous"): `uniform`, the Levinson rule (one length
per round, drawn from Lmin..Lmax), `fixed` (every game Lmin = Lmax turns) or `geometric`
(after each turn the game ends with chance p, capped at Lmax).

A geometric game's length is drawn from its own seed before the game starts, so it depends
only on (tournament seed, round, the pair) like everything else in a game, and an agent,
whose random numbers come from another seed, cannot learn it.
"""
from __future__ import annotations

import math
import random

from . import seeds
from .errors import ParameterError

UNIFORM, FIXED, GEOMETRIC = "uniform", "fixed", "geometric"
HORIZONS = (UNIFORM, FIXED, GEOMETRIC)


def check(kind: str, low: int, high: int, stop_prob: float | None) -> None:
    """One clear line for a horizon that does not make sense."""
    if kind not in HORIZONS:
        raise ParameterError(f"horizon {kind!r} must be one of {', '.join(HORIZONS)}")
    if kind == FIXED and low != high:
        raise ParameterError(f"--horizon fixed plays every game the same length: give it as "
                             f"--length L L (not {low} {high})")
    if kind == GEOMETRIC:
        if stop_prob is None:
            raise ParameterError("--horizon geometric needs --stop-prob P (the chance a game "
                                 "ends after each turn)")
        if not 0.0 < stop_prob <= 1.0:
            raise ParameterError(f"stop probability {stop_prob} must be above 0 and at most 1")
    elif stop_prob is not None:
        raise ParameterError(f"--stop-prob applies to --horizon geometric only (not {kind})")


def geometric_length(seed_of_game: int, stop_prob: float, cap: int) -> int:
    """Turns played when each turn ends the game with chance p: P(L = k) = (1-p)^(k-1) p,
    cut at `cap` (the cap takes the rest of the distribution)."""
    if stop_prob >= 1.0:
        return 1
    u = random.Random(seeds.derive(seed_of_game, "horizon")).random()   # in [0, 1)
    turns = 1 + math.floor(math.log1p(-u) / math.log1p(-stop_prob))
    return min(turns, cap)
