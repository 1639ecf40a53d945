"""Which students wrote which agent, from the course roster (`--roster FILE`).

The roster format belongs to `pdharness validate` (harness/validation/naming.py): when that
module offers a reader, it is used, so both commands read a roster the same way. Until then
this reads the format INTERFACE.md describes: a CSV with one team per row, its members'
last names one per cell (a header row, if any - "team", "members", "last names"... - is skipped; several names in one cell may be separated by ';').
An agent is named after its team's last names joined (KhosmoodLevinson), so an agent
matches the team whose names, joined in some order, spell its name (case-insensitive).
"""
from __future__ import annotations

import re
from itertools import permutations


class Roster:
    def __init__(self, teams: list[list[str]]):
        self.teams = teams
        self.by_key: dict[str, list[str]] = {}
        for team in teams:
            for order in permutations(team) if len(team) <= 5 else [team]:
                self.by_key.setdefault(_key("".join(order)), list(team))

    def members(self, agent: str) -> list[str] | None:
        return self.by_key.get(_key(agent))


def _key(text: str) -> str:
    return re.sub(r"[^\w]", "", text).casefold()


def load_roster(path) -> Roster:
    teams = _teams_from_validation(path)
    if teams is None:
        teams = _read_teams(path)
    return Roster(teams)


def _teams_from_validation(path):
    """The validate command's own roster reader, when it exists and offers teams."""
    try:
        from ..validation import naming
    except ImportError:
        return None
    reader = getattr(naming, "read_roster", None) or getattr(naming, "load_roster", None)
    if reader is None:
        return None
    roster = reader(path)
    teams = getattr(roster, "teams", roster)
    try:
        return [[str(name) for name in getattr(team, "members", team)] for team in teams]
    except TypeError:
        return None


_HEADER = re.compile(r"(teams?|members?|(last ?)?names?|students?)( \w+)?", re.I)


def _read_teams(path) -> list[list[str]]:
    import csv

    from ..errors import HarnessError

    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle))
    except OSError as error:
        raise HarnessError(f"--roster {path}: cannot read: {error.strerror}")
    except (UnicodeDecodeError, csv.Error) as error:
        raise HarnessError(f"--roster {path}: not a CSV file ({error})")
    if rows and any(_HEADER.fullmatch(cell.strip()) for cell in rows[0]):
        rows = rows[1:]
    teams = []
    for row in rows:
        names = [name.strip() for cell in row for name in cell.split(";") if name.strip()]
        if names:
            teams.append(names)
    if not teams:
        raise HarnessError(f"--roster {path}: no teams found")
    return teams
