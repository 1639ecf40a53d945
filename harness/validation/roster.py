"""The roster (`--roster FILE`): which teams there are, read from the CSV files instructors
have at hand.

Accepted shapes (docs/submit.md shows examples):
- one team per row: its members' last names, one per cell, or several in one cell separated
  by `;`, `,`, `/`, `&`, `+` or `and`; a header row is optional, and columns headed like a
  team label (`Team`, `Group name`), an id, an e-mail or a section are not names;
- an LMS export with one student per row (a header row is then needed): a team/group
  column and either a last-name column (`Last name`, `Surname`, `lastname`) or a name
  column written `Last, First` or `First Last` (Canvas, Moodle and Blackboard group exports
  work as they are).
Comma-, semicolon- and tab-separated files are recognized, in UTF-8 (with or without BOM),
UTF-16 (Excel's "Unicode text") or Windows-1252 (older Excel CSV).
"""
from __future__ import annotations

import csv
import difflib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.agents.population import read_bounded
from harness.core.errors import HarnessError

from .naming import name_for, plain, split_capitals

MAX_ROSTER_BYTES = 8 << 20   # a class of thousands is well under a megabyte
TEAM_WORDS = {"team", "group", "groupname", "teamname"}
TEAM_HEADERS = ("team", "group", "team name", "group name", "groupname", "teamname",
                "team number", "group number", "project group", "project team")
MEMBER_WORDS = {"member", "members", "student", "students", "surname", "surnames", "last",
                "lastname", "family", "partner", "partners", "author", "authors"}
IGNORED_WORDS = {"email", "mail", "id", "section", "sections", "login", "username", "user",
                 "score", "grade", "number", "no", "first", "firstname", "given", "comments",
                 "canvas", "sis", "role", "idnumber"}
LAST_NAME_HEADERS = {"last name", "lastname", "last", "surname", "family name", "last names",
                     "familyname"}
FULL_NAME_HEADERS = {"name", "student", "student name", "full name", "sortable name",
                     "fullname", "display name"}
# Patterns over untrusted cells: none may backtrack (see naming.py); names are stripped after
_SEPARATORS = re.compile(r"[;,/&+\n|]|\band\b", re.IGNORECASE)
_LABEL = re.compile(r"^(team|group|grp)\b", re.IGNORECASE)
_NAME = re.compile(r"[^\W\d_](?:[^\W\d_]|[ '’.-])*")


@dataclass(frozen=True)
class Team:
    members: tuple[str, ...]               # last names as the roster writes them
    label: str = field(default="", compare=False)   # the roster's team/group name, if any

    @property
    def agent_name(self) -> str:
        return name_for(self.members)


class Roster:
    def __init__(self, teams: list[Team], source: str = ""):
        self.teams = teams
        self.source = source
        self.by_name = {plain(team.agent_name): team for team in teams}

    def __len__(self) -> int:
        return len(self.teams)

    @classmethod
    def read(cls, path: Path) -> "Roster":
        path = Path(path)
        try:
            data = read_bounded(path, MAX_ROSTER_BYTES, "a roster")
        except HarnessError as error:
            raise HarnessError(f"--roster {error}") from error
        if data.startswith(b"PK\x03\x04"):
            raise HarnessError(f"--roster {path}: is a spreadsheet workbook, not CSV; save it "
                               "as CSV (File > Save as > CSV) and pass that")
        text = decode(data)
        if "\0" in text:
            raise HarnessError(f"--roster {path}: holds binary data (NUL characters), not CSV "
                               "text; save the roster as CSV and pass that")
        try:
            rows = parse_rows(text)
        except csv.Error as error:
            raise HarnessError(f"--roster {path}: not readable as CSV ({error})") from error
        teams = student_rows(rows) if rows else None
        if teams is None:
            try:
                teams = team_rows(rows)
            except HarnessError as error:
                raise HarnessError(f"--roster {path}: {error}") from error
        if not teams:
            raise HarnessError(f"--roster {path}: no teams found in it; write one team per "
                               "row, the members' last names in its cells")
        return cls(teams, str(path))

    def team_for(self, agent_name: str) -> Team | None:
        """The team whose sorted last names spell AGENT_NAME (ignoring accents and case)."""
        return self.by_name.get(plain(agent_name))

    def team_with_members(self, members: list[str]) -> Team | None:
        """The team with exactly these members, in any order."""
        wanted = sorted(plain(m) for m in members)
        for team in self.teams:
            if sorted(plain(name_for([m])) for m in team.members) == wanted:
                return team
        return None

    def team_of(self, agent_name: str) -> Team | None:
        """The team that wrote AGENT_NAME: the one it spells, or the one whose members its
        capitals name in another order (a name validate reports, still that team's)."""
        team = self.team_for(agent_name)
        if team is None:
            parts = split_capitals(agent_name)
            team = self.team_with_members(parts) if parts else None
        return team

    def without_agent(self, agent_names) -> list[Team]:
        """The teams none of AGENT_NAMES belongs to: those that submitted nothing."""
        found = {id(team) for name in agent_names if (team := self.team_of(name)) is not None}
        return [team for team in self.teams if id(team) not in found]

    def closest(self, agent_name: str) -> Team | None:
        """The team whose name AGENT_NAME most likely misspells, if one is close."""
        found = difflib.get_close_matches(plain(agent_name), list(self.by_name), n=1,
                                          cutoff=0.75)
        return self.by_name[found[0]] if found else None


def decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def parse_rows(text: str) -> list[list[str]]:
    """Non-empty rows of stripped cells, with the delimiter the file's first line uses."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = max(",;\t", key=first.count) if first else ","
    # newline="": lines end at \n, \r\n or a lone \r (classic Mac, as some spreadsheets
    # still write), and csv keeps line breaks inside quoted cells
    rows = [[cell.strip() for cell in row]
            for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)]
    return [row for row in rows if any(row)]


def _words(cell: str) -> set[str]:
    return set(re.findall(r"[a-z]+", cell.casefold().replace("_", " ")))


def _header_text(cell: str) -> str:
    return " ".join(re.findall(r"[a-z]+", cell.casefold()))


def is_header(row: list[str]) -> bool:
    return any(_words(cell) & (TEAM_WORDS | MEMBER_WORDS | {"name", "names"}) for cell in row)


def student_rows(rows: list[list[str]]) -> list[Team] | None:
    """One student per row (an LMS group export), or None when the file is not one."""
    if not is_header(rows[0]):
        return None
    header = [_header_text(cell) for cell in rows[0]]
    team = _first(header, lambda h: h in TEAM_HEADERS)
    if team is None:
        team = _first(header, lambda h: bool(set(h.split()) & TEAM_WORDS)
                      and not set(h.split()) & {"id", "code", "member", "members"})
    last = _first(header, lambda h: h in LAST_NAME_HEADERS)
    full = _first(header, lambda h: h in FULL_NAME_HEADERS)
    if team is None or (last is None and full is None):
        return None
    groups: dict[str, list[str]] = {}
    for row in rows[1:]:
        label = _cell(row, team)
        name = _cell(row, last) if last is not None else last_name_in(_cell(row, full))
        if label and name:
            groups.setdefault(label, []).append(name)
    return [Team(tuple(members), label) for label, members in groups.items()]


def last_name_in(full_name: str) -> str:
    """`Levinson, Jonathan` -> Levinson; `Jonathan Levinson` -> Levinson."""
    if "," in full_name:
        return full_name.split(",")[0].strip()
    words = full_name.split()
    return words[-1] if words else ""


def team_rows(rows: list[list[str]]) -> list[Team]:
    """One team per row, its members' last names in the cells."""
    ignored: set[int] = set()
    first_row = 1
    if rows and is_header(rows[0]):
        ignored = {i for i, cell in enumerate(rows[0]) if not _names_column(cell)}
        rows, first_row = rows[1:], 2
    teams = []
    for number, row in enumerate(rows, start=first_row):
        label = next((cell for i, cell in enumerate(row) if i in ignored and cell), "")
        names = [name.strip() for i, cell in enumerate(row) if i not in ignored
                 for name in _SEPARATORS.split(cell) if _kept(name, number)]
        if names:
            teams.append(Team(tuple(names), label))
    return teams


def _kept(text: str, row: int) -> bool:
    """Whether a cell's text is a last name; what is plainly not one (a team number or
    label, an e-mail address) is passed over, anything else stops the reading."""
    text = text.strip()
    if not text or text.isdigit() or "@" in text or _LABEL.match(text):
        return False
    if not _NAME.fullmatch(text):
        raise HarnessError(f"row {row}: {text[:40]!r} is not a last name (letters, spaces, "
                           "hyphens and apostrophes)")
    return True


def _names_column(header_cell: str) -> bool:
    """Whether a column, by its header, holds members' names."""
    words = _words(header_cell)
    if words & MEMBER_WORDS:        # Member 1, Last name, Surname, Students
        return not words & {"email", "mail", "id", "login", "username", "first", "given"}
    return not (words & TEAM_WORDS or words & IGNORED_WORDS)   # Name, or a header unknown


def _first(header: list[str], test) -> int | None:
    return next((i for i, cell in enumerate(header) if test(cell)), None)


def _cell(row: list[str], index: int | None) -> str:
    return row[index].strip() if index is not None and index < len(row) else ""
