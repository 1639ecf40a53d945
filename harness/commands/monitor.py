"""`pdharness monitor FORM`: the original Lisp call, answered in Lisp."""
from __future__ import annotations

import sys

import click

from .options import game_options


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("form")
@click.option("--agents", "agents_dir", type=click.Path(file_okay=False), default=None,
              help="Folder where agent names are looked up (default: the bundled agents).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Games played at once (default: every core).")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None)
@click.option("--max-faults", type=click.IntRange(min=1), default=None)
@click.option("--disqualify-broken", is_flag=True)
@game_options
def command(form, agents_dir, **options):
    """Run FORM, the original call, e.g. "(monitor '(.25 .1) '(10 50) '(#'random
    #'titfortat #'KhosmoodLevinson))" (or - to read it from stdin), and print the result as
    a Lisp list on one line. The seed goes to stderr."""
    from pathlib import Path

    from lisp_bridge.monitor_call import parse_monitor_call

    from ..agents import bundled_agents_dir, resolve
    from ..formats import as_lisp
    from ..tournament import run_tournament
    from .options import seed_of, settings

    text = sys.stdin.read() if form == "-" else form
    call = parse_monitor_call(text)
    search = [Path(agents_dir)] if agents_dir else [bundled_agents_dir()]
    if agents_dir and not Path(agents_dir).is_dir():
        from ..errors import HarnessError

        raise HarnessError(f"--agents {agents_dir}: no such folder")
    specs = resolve(call.agents, search)
    options.update(flip=call.flip, length=call.length)
    seed = seed_of(options)
    result = run_tournament(specs, seed, settings(options))
    click.echo(f"seed {seed}", err=True)
    click.echo(as_lisp(result))
