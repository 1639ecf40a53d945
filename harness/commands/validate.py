"""`pdharness validate PATH...`"""
from __future__ import annotations

import sys

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--roster", type=click.Path(dir_okay=False),
              help="CSV of teams (see README, 'Before you submit').")
@click.option("--format", "format", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--isolation", type=click.Choice(["sandbox", "process", "none"]),
              default="sandbox", show_default=True)
@click.option("--timeout", type=float, default=1.0, show_default=True,
              help="Seconds an agent may take per call.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Submissions checked at once (default: twice the cores).")
def command(paths, roster, format, isolation, timeout, jobs):
    """Check submissions before upload: the name (and --roster), the file, and a short
    seeded game against built-ins through the same code as the tournament. PATH is an agent
    file or a folder of them. Exit 0 when every submission passes, 1 when any fails."""
    from pathlib import Path

    from ..errors import HarnessError
    from ..handles.opening import Isolation
    from ..validation.naming import Roster
    from ..validation.report import as_json, as_table
    from ..validation.submission import validate_all

    files = []
    for path in map(Path, paths):
        if path.is_dir():
            files += sorted(p for p in path.iterdir()
                            if p.suffix in (".py", ".hy", ".lisp") and not p.name.startswith(("_", ".")))
        elif path.is_file():
            files.append(path)
        else:
            raise HarnessError(f"{path}: no such file or folder")
    if not files:
        raise HarnessError("no agent files (.py, .hy, .lisp) to validate")
    chosen_roster = Roster.read(Path(roster)) if roster else None
    verdicts = validate_all(files, Isolation(isolation, timeout), chosen_roster, jobs)
    click.echo(as_json(verdicts) if format == "json" else as_table(verdicts))
    sys.exit(0 if all(v.ok for v in verdicts) else 1)
