"""The options of what a finished run goes out as (tournament, monitor, show, resume): the
printed result (--format), the HTML report, the grades CSV and the LMS gradebook's columns,
and --quiet. What they do is harness/present/outputs.py's, which takes their values as one
typed value (`outputs_of`: present.outputs.Outputs), never click's option dict."""
from __future__ import annotations

from dataclasses import fields

import click
from click.core import ParameterSource

from harness.present.gradebook import GRADE_COLUMN

from .options import RESULT_FORMATS, compose, format_option

# a decorator (options.format_option is the factory it comes from)
result_format_option = format_option(
    RESULT_FORMATS,
    help="How to print the result (csv: one row per agent, for a gradebook).")

gradebook_options = compose(
    click.option("--grade-top", type=click.FloatRange(min=0), default=100.0,
                 show_default=True, metavar="POINTS",
                 help="Gradebook: the grade of rank 1 (with --grades and an LMS --roster)."),
    click.option("--grade-bottom", type=click.FloatRange(min=0), default=60.0,
                 show_default=True, metavar="POINTS",
                 help="Gradebook: the grade of the last rank; ranks between are evenly "
                      "spaced."),
    click.option("--grade-column", default=GRADE_COLUMN, show_default=True, metavar="NAME",
                 help="Gradebook: the grade column's header (an LMS assignment's name)."),
)

output_options = compose(
    click.option("--report", type=click.Path(dir_okay=False), default=None,
                 metavar="FILE.html",
                 help="Write a self-contained HTML report (opens offline)."),
    click.option("--grades", type=click.Path(dir_okay=False), default=None,
                 metavar="FILE.csv",
                 help="Write the grades CSV (one row per agent) to this file too."),
    click.option("--roster", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                 help="Course roster CSV: adds each agent's team members to the grades."),
    gradebook_options,
)

quiet_option = click.option("--quiet", "-q", is_flag=True,
                            help="No progress on stderr (a bar on a terminal; elsewhere a "
                                 "line per round, and one a minute at most in between).")


def outputs_of(options: dict):
    """The outputs a command's option values ask for (present.outputs.Outputs; those it
    does not take at their defaults)."""
    from harness.present.outputs import Outputs  # `pdharness` starts light

    return Outputs(**{field.name: options[field.name] for field in fields(Outputs)
                      if options.get(field.name) is not None})


def given_here(name: str) -> bool:
    """Whether this command line (not a default, nor the course file) gives option `name`."""
    context = click.get_current_context(silent=True)
    return context is not None and context.get_parameter_source(name) not in (
        ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None)
