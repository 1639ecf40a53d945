"""`pdharness validate PATH...`: will each submission play, and if not, exactly why."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.core.safe_text import block, echo

from . import options
from .options import agent_run_options, format_option, option

# imports inside functions here are deferred (`pdharness` starts light)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path(), metavar="PATH...")
@click.option("--roster", type=click.Path(dir_okay=False),
              help="CSV of the teams: one team per row (members' last names), or an LMS "
                   "group export. The name must then spell a team on it.")
@format_option()
@agent_run_options()
@option("jobs", help="Submissions played at once (default: four per core).")
@option("seed",
        help="Seed of the contract games (default: a fresh one each time, printed; give "
             "it to replay a failure).")
@click.option("--recursive", "-r", is_flag=True,
              help="Look in the folders' subfolders too (an LMS download of one folder per "
                   "student).")
def command(paths, roster, format, jobs, seed, recursive, **limits):
    """Check submissions before upload: the name (against --roster, if given), the file,
    and short seeded games against built-ins through the same loading, process and
    answer-checking code as the tournament, under every limit and rule of the
    tournament's that shapes an agent's run (the course file's and the command line's:
    --timeout, --memory-limit, --moves-per-turn, --isolation, --flip, --length, ...).
    PATH is an agent file or a folder of them.

    Exit status: 0 when every submission passes (warnings allowed), 1 when any fails,
    2 on bad usage."""
    from harness.validation.contract import ContractParams
    from harness.validation.report import as_json, as_table
    from harness.validation.roster import Roster
    from harness.validation.submission import submission_files, validate_all

    files = submission_files(paths, recursive)
    chosen_roster = Roster.read(Path(roster)) if roster else None
    chosen = options.settings(limits)
    verdicts = validate_all(files, chosen.isolation, chosen_roster, jobs,
                            ContractParams.of(chosen, seed))
    from harness.present import colour

    if format == "json":
        echo(as_json(verdicts))
    else:
        click.echo(colour.verdicts(block(as_table(verdicts))))
    # the teams that submitted nothing, when what was checked is a class's folder: a
    # student checking their one file is not told of the twelve other teams
    if chosen_roster is not None and any(Path(path).is_dir() for path in paths):
        from harness.validation.report import missing_teams

        missing = missing_teams(chosen_roster, verdicts)
        if missing:
            click.echo(f"pdharness: {block(missing)}", err=True)
    sys.exit(0 if all(v.ok for v in verdicts) else 1)
