"""Which students wrote which agent, for the grades (`--roster FILE`).

The roster is read by `pdharness validate`'s own reader (harness/validation/roster.py), so
both commands accept the same files (team per row, or an LMS group export). An agent
matches the team whose sorted last names spell its name; a submission whose names are in
the wrong order (which validate reports) is still matched by its members.
"""
from __future__ import annotations

from pathlib import Path

from ..validation.roster import Roster as CourseRoster


class Roster:
    def __init__(self, course_roster):
        self.course = course_roster

    def members(self, agent: str) -> list[str] | None:
        team = self.team(agent)
        return list(team.members) if team else None

    def team(self, agent: str):
        """The roster's team that wrote AGENT, or None."""
        return self.course.team_of(agent)


def load_roster(path) -> Roster:
    return Roster(CourseRoster.read(Path(path)))
