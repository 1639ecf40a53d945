"""A count of things said in English: `1 fault`, `2 faults`. Every message that counts
something a run can have one of (faults, games, rounds, turns, students, tournaments) says
it through `counted`, so no output reads "1 faults"."""
from __future__ import annotations

_IRREGULAR = {"copy": "copies", "entry": "entries", "match": "matches"}


def noun_for(count: int, noun: str) -> str:
    """NOUN (the singular) as it follows COUNT: `fault` after 1, `faults` after 0 or 3."""
    return noun if count == 1 else _IRREGULAR.get(noun, noun + "s")


def counted(count: int, noun: str) -> str:
    """`1 fault`, `0 faults`, `3 faults`; NOUN is the singular."""
    return f"{count} {noun_for(count, noun)}"
