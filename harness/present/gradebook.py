"""The gradebook import: one row per student, for the LMS the roster came from.

`--grades FILE.csv` with a `--roster` exported from an LMS (one student per row, with the
LMS's identifier columns and a group column) writes one row per student of that roster: the
identifier columns that LMS matches an import on, the team (the student's group), the agent
and a grade. The layout follows the LMS the roster's header shows:

| roster (an LMS group export) | gradebook file columns |
| --- | --- |
| Canvas (`name, canvas_user_id, user_id, login_id, sections, group_name, ...`) | `Student, ID, SIS User ID, SIS Login ID, Section, Team, Agent, <grade column>, Note`, and Canvas's `Points Possible` row |
| Moodle (`Group ID, Group name, ..., First name, Last name, Email address`) | `First name, Last name, Email address, Team, Agent, <grade column>, Note` |
| Blackboard (`Group Code, Group Name, User Name, Last Name, First Name`) | `Last Name, First Name, Username, Team, Agent, <grade column>, Note` |
| any other roster with one student per row | its own columns, then `Team, Agent, <grade column>, Note` |

A roster with one team per row (no students) has no one to match: `--grades` then writes the
per-agent grades CSV, as `--format csv` prints it.

The grade (`grade_for`): rank 1 gets `--grade-top` (default 100), the last rank
`--grade-bottom` (default 60), the ranks between them evenly spaced, rounded to 0.01; tied
agents share a rank and so a grade. A student whose team has no agent in the run gets an
empty grade (an LMS import leaves it as it was), and the command says who.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.agents.lang import LANGUAGES
from harness.core.counts import counted
from harness.core.errors import HarnessError
from harness.core.safe_text import echo, line

# imports inside functions here are deferred (`pdharness` starts light)

GRADE_COLUMN = "PD Tournament"

@dataclass(frozen=True)
class Layout:
    """An LMS's gradebook file: which roster columns (by header, compared in lower case)
    become which gradebook columns, and whether it has Canvas's Points Possible row."""
    name: str
    marks: tuple[str, ...]                  # roster headers that identify this LMS
    columns: tuple[tuple[str, str], ...]    # (gradebook header, roster header)
    points_row: bool = False


LAYOUTS = (
    Layout("canvas", ("canvas_user_id", "login_id"), (
        ("Student", "name"), ("ID", "canvas_user_id"), ("SIS User ID", "user_id"),
        ("SIS Login ID", "login_id"), ("Section", "sections")), points_row=True),
    Layout("moodle", ("email address",), (
        ("First name", "first name"), ("Last name", "last name"),
        ("Email address", "email address"))),
    Layout("blackboard", ("user name",), (
        ("Last Name", "last name"), ("First Name", "first name"),
        ("Username", "user name"))),
)


@dataclass
class Student:
    cells: dict            # roster header (lower case) -> cell
    team: str              # the group's label on the roster, "" when in none


@dataclass
class StudentRoster:
    layout: Layout | None
    headers: list[str]     # as the roster writes them
    team_header: str
    students: list[Student]


def read_students(path) -> StudentRoster | None:
    """The roster's students, or None when it holds teams, not students."""
    from harness.agents.population import read_bounded

    from ..validation.roster import MAX_ROSTER_BYTES, TEAM_HEADERS, decode, parse_rows

    rows = parse_rows(decode(read_bounded(Path(path), MAX_ROSTER_BYTES, "a roster")))
    if len(rows) < 2:
        return None
    headers = rows[0]
    lowered = [" ".join(cell.casefold().replace("_", " ").split()) for cell in headers]
    raw = [cell.strip().casefold() for cell in headers]
    team = next((i for i, h in enumerate(lowered) if h in TEAM_HEADERS), None)
    if team is None:
        return None
    layout = next((lms for lms in LAYOUTS if all(mark in raw for mark in lms.marks)), None)
    if layout is None and not any(h in ("name", "last name", "surname", "student", "email",
                                        "email address", "first name") for h in lowered):
        return None
    students = [Student({raw[i]: (row[i].strip() if i < len(row) else "")
                         for i in range(len(raw))}, row[team].strip() if team < len(row) else "")
                for row in rows[1:]]
    return StudentRoster(layout, headers, raw[team], students)


def grade_for(rank: int, ranks: int, top: float, bottom: float) -> float:
    """Rank 1 -> top, rank `ranks` -> bottom, evenly spaced between."""
    if ranks <= 1:
        return round(top, 2)
    return round(top - (rank - 1) * (top - bottom) / (ranks - 1), 2)


def gradebook_rows(result, students: StudentRoster, course_roster, top: float,
                   bottom: float, column: str) -> tuple[list[str], list[list], list[str]]:
    """(header, rows, the students left without a grade): rank 1 graded `top`, the last
    rank `bottom`, under the grade column's header `column`."""
    ranks = max((s.rank for s in result.standings), default=1)
    by_team = {}
    for standing in result.standings:
        team = course_roster.team(standing.agent)
        if team is not None:
            by_team[_key(team.label or "|".join(team.members))] = standing
    layout = students.layout
    if layout is not None:
        header = [out for out, _source in layout.columns]
        sources = [source for _out, source in layout.columns]
    else:
        header = [h for h in students.headers if h.strip().casefold() != students.team_header]
        sources = [h.strip().casefold() for h in header]
    header += ["Team", "Agent", column, "Note"]
    notes = _notes(result)
    rows, ungraded = [], []
    if layout is not None and layout.points_row:
        rows.append(["    Points Possible"] + [""] * (len(header) - 3) + [_number(top), ""])
    for student in students.students:
        standing = by_team.get(_key(student.team)) if student.team else None
        grade = grade_for(standing.rank, ranks, top, bottom) if standing else ""
        if standing is None:
            ungraded.append(_who(student, sources))
        rows.append([student.cells.get(source, "") for source in sources]
                    + [student.team, standing.agent if standing else "", _number(grade),
                       notes.get(standing.agent, "") if standing else ""])
    return header, rows, ungraded


def _notes(result) -> dict[str, str]:
    """Why an agent's grade is what it is, where its status says something ("disqualified:
    does not load: ..."; an agent that played well has no message): the student reads it
    beside the grade."""
    return {e.name: f"{e.status}: {e.message}" for e in result.entrants if e.message}


def _key(label: str) -> str:
    return " ".join(label.casefold().split())


def _who(student: Student, sources) -> str:
    return " ".join(student.cells.get(s, "") for s in sources[:2]).strip() or "a student"


def _number(value) -> str:
    if value == "":
        return ""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def as_gradebook_csv(header, rows) -> str:
    from .csv_table import write_csv

    return write_csv(header, rows, line_end="\r\n")


def write_gradebook_or_grades(path, result, roster, outputs, provisional: bool = False
                              ) -> None:
    """--grades FILE: the per-student gradebook when the roster lists students, else the
    per-agent grades CSV. `outputs` (present.outputs.Outputs): the roster file and the
    grades' scale. `provisional` (an unfinished record's, `show --provisional`): marked so
    in the file itself, the grade column's header or a column of its own."""
    from .grades import write_grades

    students = read_students(outputs.roster) if roster is not None else None
    if students is None:
        write_grades(path, result, roster, provisional)
        if roster is not None:  # a roster of teams: who has no row, who is on no team
            _say_missing_teams(result, roster)
            _say_strays(result, roster)
        return
    column = outputs.grade_column or GRADE_COLUMN
    if provisional:
        column = f"{column} (provisional)"
    header, rows, ungraded = gradebook_rows(result, students, roster, outputs.grade_top,
                                            outputs.grade_bottom, column)
    try:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(as_gradebook_csv(header, rows))
    except OSError as error:
        raise HarnessError(f"--grades {path}: cannot write: {error.strerror}") from error
    lms = students.layout.name if students.layout else "the roster's own"
    echo(f"pdharness: gradebook {line(path)}: {counted(len(students.students), 'student')}, "
         f"{lms} columns", err=True)
    if ungraded:
        echo(f"pdharness: no agent in this run for {counted(len(ungraded), 'student')}, "
             "grade left empty: "
             f"{line(', '.join(ungraded))}", err=True)
    _say_strays(result, roster)


def _say_strays(result, roster) -> None:
    strays = unmatched_agents(result, roster)
    if strays:
        count = f"{len(strays)} agent" + ("s" if len(strays) != 1 else "")
        echo(f"pdharness: {count} of this run match no team on the roster, so no "
             f"student gets their grade: {line(', '.join(strays))}", err=True)


def _say_missing_teams(result, roster) -> None:
    """The roster's teams with no agent in the run (they submitted nothing, or their file
    is not in the run): the per-agent grades file has no row for them."""
    from ..validation.report import team_words

    course = roster.course
    missing = course.without_agent(s.agent for s in result.standings)
    if missing:
        count = f"{len(missing)} team" + ("s" if len(missing) != 1 else "")
        teams = "; ".join(line(team_words(team)) for team in missing)
        echo(f"pdharness: no agent in this run for {count} of the roster "
             f"{line(str(course.source))}, so no grade: {teams}", err=True)


def unmatched_agents(result, roster) -> list[str]:
    """The students' agents (files, not built-ins) that no team of the roster wrote."""
    languages = {entrant.name: entrant.spec.language for entrant in result.entrants}
    return [s.agent for s in result.standings
            if languages.get(s.agent) in LANGUAGES and roster.team(s.agent) is None]
