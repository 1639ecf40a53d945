"""The naming rule: LastnameLastname..., each member's last name capitalized, in
alphabetical order; and the roster that says who the teams are.

Real names: letters outside ASCII are kept as written (Muñoz; Python, Hy and Lisp accept
them), hyphens, apostrophes and spaces are dropped with the next letter capitalized
(Smith-Jones -> SmithJones, O'Brien -> OBrien, De la Cruz -> DeLaCruz); names compare
without accents and case, so a roster's Muñoz matches a file's Munoz.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import HarnessError

# Parts after which a capital may continue the same last name (McDonald, DeLaCruz, OBrien)
AMBIGUOUS_PREFIXES = {"Mc", "Mac", "De", "Del", "Della", "La", "Le", "Van", "Von", "Der",
                      "Den", "Di", "Da", "Du", "Dos", "St", "O", "D", "Al", "El", "Ben"}
_PART = re.compile(r"[^\W\d_][^\W\d_A-Z]*", re.UNICODE)


def agent_name_of(last_name: str) -> str:
    """A real last name as it appears in an agent name: Smith-Jones -> SmithJones."""
    pieces = re.split(r"[\s\-'’]+", last_name.strip())
    return "".join(piece[:1].upper() + piece[1:] for piece in pieces if piece)


def plain(text: str) -> str:
    """For comparing names: no accents, no case."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def split_capitals(name: str) -> list[str] | None:
    """KhosmoodLevinson -> [Khosmood, Levinson]; None when it is not CamelCase letters."""
    if not name or not name[0].isupper() or not all(c.isalpha() for c in name):
        return None
    parts, current = [], name[0]
    for char in name[1:]:
        if char.isupper():
            parts.append(current)
            current = char
        else:
            current += char
    parts.append(current)
    return parts


@dataclass
class NameCheck:
    problems: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    members: list[str] = field(default_factory=list)


def check_name(name: str) -> NameCheck:
    """The rule without a roster: the split is inferred from capitals."""
    result = NameCheck()
    parts = split_capitals(name)
    if parts is None:
        result.problems.append(("name-format",
                                f"{name!r} is not last names run together, each capitalized "
                                "(letters only, like KhosmoodLevinson)"))
        return result
    result.members = parts
    unsure = [p for p in parts if p in AMBIGUOUS_PREFIXES or len(p) == 1]
    if unsure:
        result.warnings.append(
            f"cannot tell for sure where the last names in {name} split "
            f"({', '.join(unsure)} may start a longer name); check the order by hand "
            "or validate with --roster")
        return result
    keys = [plain(p) for p in parts]
    if keys != sorted(keys):
        result.problems.append(("name-order",
                                f"{name}: last names not in alphabetical order; expected "
                                f"{''.join(sorted(parts, key=plain))}"))
    return result


@dataclass(frozen=True)
class Team:
    members: tuple[str, ...]     # last names as the roster writes them

    @property
    def agent_name(self) -> str:
        return "".join(agent_name_of(m) for m in sorted(self.members, key=plain))


class Roster:
    """Teams from a CSV file. Accepted shapes (a header row is optional):
    - one team per row, one last name per cell (`Khosmood,Levinson`), or all of them in one
      cell separated by `;`, `/`, `&` or ` and `;
    - an LMS export with one student per row: a team/group column and a last-name column
      (`Last Name`, `Surname`, `last_name`), or a `Name` column written `Last, First`.
    """

    def __init__(self, teams: list[Team]):
        self.teams = teams
        self.by_name = {plain(team.agent_name): team for team in teams}

    @classmethod
    def read(cls, path: Path) -> "Roster":
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise HarnessError(f"--roster {path}: cannot read: {error}")
        rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text))]
        rows = [row for row in rows if any(row)]
        if not rows:
            raise HarnessError(f"--roster {path}: no teams in it")
        teams = _student_rows(rows) or _team_rows(rows)
        if not teams:
            raise HarnessError(f"--roster {path}: no teams in it")
        return cls(teams)

    def team_for(self, agent_name: str) -> Team | None:
        return self.by_name.get(plain(agent_name))

    def team_with_members(self, members: list[str]) -> Team | None:
        wanted = sorted(plain(m) for m in members)
        for team in self.teams:
            if sorted(plain(agent_name_of(m)) for m in team.members) == wanted:
                return team
        return None


_TEAM_HEADERS = ("team", "group", "group_name", "team name", "group name", "project group")
_LAST_HEADERS = ("last name", "last_name", "lastname", "surname", "family name", "last")


def _student_rows(rows) -> list[Team] | None:
    header = [cell.casefold() for cell in rows[0]]
    team_column = next((i for i, h in enumerate(header) if h in _TEAM_HEADERS), None)
    last_column = next((i for i, h in enumerate(header) if h in _LAST_HEADERS), None)
    name_column = next((i for i, h in enumerate(header) if h in ("name", "student")), None)
    if team_column is None or (last_column is None and name_column is None):
        return None
    groups: dict[str, list[str]] = {}
    for row in rows[1:]:
        if team_column >= len(row) or not row[team_column]:
            continue
        if last_column is not None and last_column < len(row):
            last = row[last_column]
        else:
            full = row[name_column] if name_column < len(row) else ""
            last = full.split(",")[0] if "," in full else full.split()[-1] if full else ""
        if last:
            groups.setdefault(row[team_column], []).append(last)
    return [Team(tuple(members)) for members in groups.values()]


def _team_rows(rows) -> list[Team]:
    first = [cell.casefold() for cell in rows[0]]
    skip = set()
    if any(word in cell for cell in first for word in ("team", "member", "name", "group")):
        rows = rows[1:]  # a header; its team/group columns hold labels, not names
        skip = {i for i, cell in enumerate(first)
                if ("team" in cell or "group" in cell) and "member" not in cell}
    teams = []
    for row in rows:
        names = [name.strip() for i, cell in enumerate(row) if i not in skip
                 for name in re.split(r";|/|&|\band\b", cell)
                 if name.strip() and not name.strip().isdigit()]
        if names:
            teams.append(Team(tuple(names)))
    return teams
