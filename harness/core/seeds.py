"""Every random draw follows from one tournament seed.

A derived seed is the first 8 bytes of SHA-256 over a canonical text of its parts, so it
is the same on every machine and Python version, and a game's seed depends only on
(tournament seed, round, the pair of names) - never on the order games are played in.

A name enters a seed, and decides a side, by its one canonical spelling (`canonical_name`):
an agent's name is the same agent whatever its case (two names differing only in case
are refused), and the paths that name one agent spell it differently - the file
`KhosmoodLevinson.lisp`, the Lisp REPL's `(defun KhosmoodLevinson ...)`, whose reader
upcases it to KHOSMOODLEVINSON, Hy's and Python's functions - so each of them plays the
same games with the same seed.
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


def canonical_name(name: str) -> str:
    """The spelling of an agent's name that seeds and sides follow (case folded: see the
    module's docstring); also what tells two agents' names apart."""
    return name.casefold()


def name_order(name: str) -> tuple[str, str]:
    """The sort key of agents' names wherever order decides something (which side of a game
    is "a", ties in the standings): the canonical spelling first, then the name itself (a
    total order, and the same for every spelling of one agent's name)."""
    return canonical_name(name), name


def sides(a: str, b: str) -> tuple[str, str]:
    """The two names of a game in side order: side "a" is the one that sorts first."""
    return (a, b) if name_order(a) <= name_order(b) else (b, a)


def game_seed(tournament_seed: int, round_number: int, a: str, b: str) -> int:
    first, second = sorted((canonical_name(a), canonical_name(b)))
    return derive(tournament_seed, "game", round_number, first, second)


def game_seed_as_written(tournament_seed: int, round_number: int, a: str, b: str) -> int:
    """A game's seed as pdharness derived it before names were case-folded: only
    to tell a record made then from one changed since (resume says which)."""
    first, second = sorted((a, b))
    return derive(tournament_seed, "game", round_number, first, second)


def ladder_game_seed(ladder_seed: int, a: str, version_a: str, b: str, version_b: str,
                     number: int) -> int:
    """The seed of a ladder's game NUMBER between two versions (harness/run/ladder/): the
    names canonical and the versions (content digests) with them, so the same passes give
    the same games whatever else was submitted, and a new version plays new games."""
    first, second = sorted(((canonical_name(a), version_a), (canonical_name(b), version_b)))
    return derive(ladder_seed, "ladder", *first, *second, number)


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
