"""What a finished run goes out as, for tournament, resume and show alike: the printed
result (--format), the HTML report (--report), the grades CSV (--grades, --roster)."""
from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass, replace
from typing import Any

from harness.core.interrupts import exit_status
from harness.core.output_paths import make_parent
from harness.core.safe_text import (
    block,  # two lines of ours, quoting the record's path
    echo,
    line,
)

from .formats import FORMATS
from .gradebook import GRADE_COLUMN, write_gradebook_or_grades
from .team_members import load_roster
from .tournament_report import write_report


@dataclass(frozen=True)
class Outputs:
    """The outputs a run was asked for (the command line builds it from its options:
    harness/cli/commands/output_options.py); the defaults are the options' own."""

    format: str = "table"
    report: str | None = None        # FILE.html
    grades: str | None = None        # FILE.csv
    roster: str | None = None        # the course roster, for the grades' team members
    grade_top: float = 100.0         # the gradebook's grade of rank 1
    grade_bottom: float = 60.0       # ... and of the last rank
    grade_column: str = GRADE_COLUMN
    provisional: bool = False        # grades of an unfinished record, marked as such


def check_outputs(outputs: Outputs) -> object:
    """Fail on unusable output paths before a long run, not after; the roster, read."""
    for option in ("report", "grades"):
        target = getattr(outputs, option)
        if target:
            make_parent(target, f"--{option} {target}")
    if outputs.roster:
        return load_roster(outputs.roster)
    return None


# What a recorded run keeps of the outputs it asked for, so that `resume` delivers them
# when the run finishes, however it finishes (an interrupted run writes neither)
KEPT = ("report", "grades", "roster", "grade_top", "grade_bottom", "grade_column")
_PATHS = ("report", "grades", "roster")


def asked_for(outputs: Outputs) -> str | None:
    """The run's outputs as the record keeps them (JSON, absolute paths), or None."""
    if not (outputs.report or outputs.grades):
        return None
    asked = {name: getattr(outputs, name) for name in KEPT}
    kept = {name: (os.path.abspath(value) if name in _PATHS else value)
            for name, value in asked.items() if value is not None}
    return json.dumps(kept, sort_keys=True)


def recorded_outputs(record, outputs: Outputs, given_here) -> Outputs:
    """`outputs` (resume's) with the outputs the run asked for that this command line does
    not set itself (`given_here(name)`: whether it does). A record is a file anyone may
    have edited: only those names, only text or numbers, and a recorded report or grades
    file that already exists is not replaced (another run may have written it): it is
    named on stderr instead."""
    text = record.run["outputs"] if "outputs" in record.run.keys() else None
    try:
        kept = json.loads(text) if isinstance(text, str) else {}
    except (ValueError, RecursionError):   # a record anyone can edit
        kept = {}
    if not isinstance(kept, dict):
        kept = {}
    options: dict[str, Any] = {}
    for name in ("report", "grades"):  # a course file's: the record says what the run asked
        if not given_here(name):
            options[name] = None
    for name in KEPT:
        value = kept.get(name)
        wanted = str if name in _PATHS or name == "grade_column" else (int, float)
        if given_here(name) or not isinstance(value, wanted) or isinstance(value, bool):
            continue
        if name in ("report", "grades") and isinstance(value, str) and os.path.exists(value):
            echo(f"pdharness: the run's --{name} {line(value)} exists: not replaced "
                 f"(write it with: pdharness show {line(str(record.path))} --{name} "
                 "FILE)", err=True)
            continue
        options[name] = value
        if name in ("report", "grades"):
            echo(f"pdharness: the run asked for --{name} {line(value)}: written when "
                 "it finishes", err=True)
    return replace(outputs, **options)


def deliver(result, outputs: Outputs, roster=None, command: str | None = None,
            incomplete: str | None = None) -> None:
    chosen = FORMATS[outputs.format]
    if chosen.seed_on_stderr:
        echo(f"seed {result.seed}", err=True)
    text = chosen.write(result, roster, incomplete)
    echo(text.rstrip("\n"))  # json and csv have no control character left to escape
    if outputs.report:
        replaced = _replacing(outputs.report)
        write_report(outputs.report, result, command=command, incomplete=incomplete)
        _say_replaced("report", outputs.report, replaced)
    if outputs.grades:
        replaced = _replacing(outputs.grades)
        write_gradebook_or_grades(outputs.grades, result, roster, outputs,
                                  provisional=bool(incomplete and outputs.provisional))
        _say_replaced("grades", outputs.grades, replaced)


def _replacing(path) -> bool:
    return os.path.exists(path)


def _say_replaced(option: str, path, replaced: bool) -> None:
    """An output file never replaces an earlier one silently (another run's, perhaps)."""
    if replaced:
        echo(f"pdharness: --{option} {line(str(path))}: replaced the file that was "
             "there", err=True)


def command_line() -> str:
    """The command as typed, without `--config FILE`: the course file's values are written
    out after it (course.as_options), so the record reruns without the file."""
    words, skip = [], False
    for word in sys.argv[1:]:
        if skip or word == "--config":
            skip = not skip and word == "--config"
            continue
        if word.startswith("--config="):
            continue
        words.append(word)
    return " ".join(["pdharness", *map(shlex.quote, words)])


def exit_interrupted(error) -> None:
    echo(f"pdharness: {block(error)}", err=True)
    sys.exit(exit_status())
