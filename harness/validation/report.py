"""Verdicts as people read them (a line per file, problems and hints underneath) and as
scripts read them (the JSON list of INTERFACE.md)."""
from __future__ import annotations

import json


def as_json(verdicts) -> str:
    return json.dumps([v.as_dict() for v in verdicts], indent=2, ensure_ascii=False)


def as_table(verdicts) -> str:
    lines = []
    for verdict in verdicts:
        mark = "ok  " if verdict.ok else "FAIL"
        what = f"{verdict.agent} ({verdict.language})" if verdict.language else ""
        lines.append(f"{mark}  {verdict.path}  {what}".rstrip())
        for problem in verdict.problems:
            lines.append(f"      {problem.code}: {problem.message}")
            if problem.hint:
                lines.append(f"        fix: {problem.hint}")
        for warning in verdict.warnings:
            lines.append(f"      warning: {warning}")
    passed = sum(v.ok for v in verdicts)
    lines.append(f"{passed} of {len(verdicts)} submission(s) pass.")
    return "\n".join(lines)
