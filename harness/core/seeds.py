"""Every random draw follows from one tournament seed.

A derived seed is the first 8 bytes of SHA-256 over a canonical text of its parts, so it
is the same on every machine and Python version, and a game's seed depends only on
(tournament seed, round, the pair of names) - never on the order games are played in.
"""
from __future__ import annotations

import hashlib
import secrets

SEED_LIMIT = 2 ** 63


def derive(*parts) -> int:
    """A seed in [0, 2**63) from a tuple of ints and strings."""
    text = "\x1f".join(f"{type(p).__name__}:{p}" for p in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % SEED_LIMIT


def fresh_seed() -> int:
    """A seed for a run whose user gave none (printed with the result, so it can be rerun):
    the OS's randomness, every one of the 63 bits, so no agent can guess it and compute the
    flips of its games (they follow from the seed)."""
    return secrets.randbelow(SEED_LIMIT)


def known_seed_note(seed: int) -> str:
    """What a run given a seed by hand says (once, on stderr)."""
    return (f"pdharness: note: seed {seed} was chosen by hand: an agent that knows it can "
            "predict its own flips and cancel them; to grade, leave --seed out (a fresh "
            "seed is drawn and printed)")


def game_seed(tournament_seed: int, round_number: int, a: str, b: str) -> int:
    first, second = sorted((a, b))
    return derive(tournament_seed, "game", round_number, first, second)


def length_seed(tournament_seed: int, round_number: int) -> int:
    return derive(tournament_seed, "length", round_number)


def flip_seed(seed_of_game: int, side: str) -> int:
    """Flips are drawn separately for each side ("a" sorts first)."""
    return derive(seed_of_game, "flips", side)


def agent_seed(seed_of_game: int, side: str) -> int:
    """Seeds the agent's own random numbers for one game."""
    return derive(seed_of_game, "agent", side)


def replicate_seed(tournament_seed: int, replicate: int) -> int:
    return derive(tournament_seed, "replicate", replicate)
