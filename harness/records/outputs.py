"""What a finished run goes out as, for tournament, resume and show alike: the printed
result (--format), the HTML report (--report), the grades CSV (--grades, --roster)."""
from __future__ import annotations

import click

from ..commands import options as command_options
from ..commands.options import compose

format_option = command_options.format_option(
    command_options.RESULT_FORMATS,
    help="How to print the result (csv: one row per agent, for a gradebook).")

output_options = compose(
    click.option("--report", type=click.Path(dir_okay=False), default=None,
                 metavar="FILE.html",
                 help="Write a self-contained HTML report (opens offline)."),
    click.option("--grades", type=click.Path(dir_okay=False), default=None,
                 metavar="FILE.csv",
                 help="Write the grades CSV (one row per agent) to this file too."),
    click.option("--roster", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                 help="Course roster CSV: adds each agent's team members to the grades."),
    lambda function: _gradebook_options()(function),
)


def _gradebook_options():
    from .gradebook import gradebook_options

    return gradebook_options

quiet_option = click.option("--quiet", "-q", is_flag=True,
                            help="No progress bar (there is none when stderr is not a "
                                 "terminal either).")


def check_outputs(options) -> object:
    """Fail on unusable output paths before a long run, not after; the roster, read."""
    from pathlib import Path

    from ..errors import HarnessError

    for option in ("report", "grades"):
        target = options.get(option)
        if target and not Path(target).resolve().parent.is_dir():
            raise HarnessError(f"--{option} {target}: folder {Path(target).parent} "
                               "does not exist")
    if options.get("roster"):
        from .roster import load_roster

        return load_roster(options["roster"])
    return None


def deliver(result, options, roster=None, command: str | None = None,
            incomplete: str | None = None) -> None:
    from ..formats import FORMATTERS, as_table
    from ..safe_text import echo
    from .grades import as_grades_csv
    from .report import write_report

    chosen = options.get("format") or "table"
    if chosen in ("lisp", "csv"):
        click.echo(f"seed {result.seed}", err=True)
    if chosen == "csv":
        text = as_grades_csv(result, roster)
    else:
        text = (FORMATTERS[chosen](result) if chosen != "table"
                else as_table(result, incomplete=incomplete))
        replicates = getattr(result, "replicates", None)
        if chosen == "table" and replicates is not None:
            text += "\n\n" + replicates.as_table()
    echo(text.rstrip("\n"))  # json and csv have no control character left to escape
    if options.get("report"):
        write_report(options["report"], result, command=command, incomplete=incomplete)
    if options.get("grades"):
        from .gradebook import write_gradebook_or_grades

        write_gradebook_or_grades(options["grades"], result, roster, options)


def command_line() -> str:
    """The command as typed, without `--config FILE`: the course file's values are written
    out after it (course.as_options), so the record reruns without the file."""
    import shlex
    import sys

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
    import sys

    from ..safe_text import block  # two lines of ours, quoting the record's path

    click.echo(f"pdharness: {block(error)}", err=True)
    sys.exit(130)
