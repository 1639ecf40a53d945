"""`pdharness tournament [AGENT]...`"""
from __future__ import annotations

import click

from .options import game_options, tournament_options

FORMATS = ("table", "json", "lisp", "csv")


def run_and_print(specs, options) -> None:
    from ..formats import FORMATTERS
    from ..tournament import run_tournament
    from .options import seed_of, settings

    chosen = settings(options)
    seed = seed_of(options)
    result = run_tournament(specs, seed, chosen)
    if options["format"] in ("lisp", "csv"):
        click.echo(f"seed {seed}", err=True)
    click.echo(FORMATTERS[options["format"]](result))


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("agents", nargs=-1)
@game_options
@tournament_options
@click.option("--format", "format", type=click.Choice(FORMATS), default="table",
              show_default=True, help="How to print the result.")
def command(agents, **options):
    """Run the Levinson tournament among AGENTS: agent files, folders of them or built-in
    names (none given: the bundled student_agents/)."""
    from ..agents import bundled_agents_dir, resolve

    specs = resolve(agents or [str(bundled_agents_dir())])
    run_and_print(specs, options)
