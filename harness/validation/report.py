"""Verdicts as people read them (a line per file, problems and how to fix each underneath)
and as scripts read them (the JSON list of docs/interface.md)."""
from __future__ import annotations

import json

from harness.core.counts import counted
from harness.core.safe_text import line


def as_json(verdicts) -> str:
    # ensure_ascii: C1 controls and bidi overrides in a path or message stay \u escapes
    return json.dumps([v.as_dict() for v in verdicts], indent=2)


def as_table(verdicts) -> str:
    """For a terminal: paths, names, messages and warnings escaped (`line`)."""
    lines = []
    for verdict in verdicts:
        mark = "ok  " if verdict.ok else "FAIL"
        what = f"{line(verdict.agent)} ({verdict.language})" if verdict.language else ""
        lines.append(f"{mark}  {line(verdict.path)}  {what}".rstrip())
        for problem in verdict.problems:
            lines.append(f"      {problem.code}: {line(problem.message)}")
            hint = problem.hint(verdict.language)
            if hint:
                lines.append(f"        fix: {hint}")
        for warning in verdict.warnings:
            lines.append(f"      warning: {line(warning)}")
    seed = next((v.seed for v in verdicts if v.seed is not None), None)
    if seed is not None:
        lines.append(f"Games seeded with {seed} (to replay them: --seed {seed}).")
    lines.append(summary(verdicts))
    return "\n".join(lines)


def missing_teams(roster, verdicts) -> str | None:
    """The roster's teams no checked file belongs to (they submitted nothing), or None."""
    missing = roster.without_agent(v.agent for v in verdicts if v.agent)
    if not missing:
        return None
    teams = "; ".join(line(team_words(team)) for team in missing)
    return f"{counted(len(missing), 'team')} of the roster {roster.source} submitted " \
           f"nothing: {teams}"


def team_words(team) -> str:
    members = ", ".join(team.members)
    if not team.label:
        return members
    label = f"team {team.label}" if team.label.isdigit() else team.label
    return f"{label} ({members})"


def summary(verdicts) -> str:
    passed = sum(v.ok for v in verdicts)
    warned = sum(1 for v in verdicts if v.ok and v.warnings)
    noted = f" ({warned} with warnings)" if warned else ""
    files = "submission passes" if len(verdicts) == 1 else "submissions pass"
    return f"{passed} of {len(verdicts)} {files}{noted}."
