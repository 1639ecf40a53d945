"""`pdharness monitor FORM`: the original Lisp call, answered in Lisp."""
from __future__ import annotations

import sys
from pathlib import Path

import click
from click.core import ParameterSource

from harness.agents.specs import bundled_agents_dir, resolve
from harness.core.errors import HarnessError

from .options import MAX_GAME_LENGTH, game_options, replicates_option, tournament_options
from .output_options import output_options, quiet_option
from .tournament import run_and_print, say_found


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("form")
@click.option("--agents", "agents_dir", type=click.Path(file_okay=False), default=None,
              help="Folder where agent names not in the current folder are looked up "
                   "(default: the bundled agents).")
@game_options
@tournament_options
@click.option("--db", type=click.Path(dir_okay=False), default=None, metavar="FILE.sqlite",
              help="Record the run in this new SQLite file (see show, resume).")
@replicates_option("Also run N tournaments with seeds derived from --seed.")
@output_options
@quiet_option
def command(form, agents_dir, **options):
    """Run FORM, the original call, e.g. "(monitor '(.25 .1) '(10 50) '(#'random
    #'titfortat #'KhosmoodLevinson))" (or - to read it from stdin), and print the result as
    a Lisp list on one line. The seed goes to stderr. The call's flipParams and gameLength
    replace --flip and --length; the other options of `tournament` apply."""
    # `pdharness` starts light
    from lisp_bridge.monitor_call import MonitorFormError, parse_monitor_call

    if agents_dir and not Path(agents_dir).is_dir():
        raise HarnessError(f"--agents {agents_dir}: no such folder")
    try:
        call = parse_monitor_call(_form_from_stdin() if form == "-" else form, MAX_GAME_LENGTH)
    except MonitorFormError as error:
        raise HarnessError(str(error)) from error
    search = [Path(agents_dir)] if agents_dir else [bundled_agents_dir()]
    found: list[str] = []
    specs = resolve(call.agents, search, found=found)   # the current folder first
    say_found(found)
    _note_replaced(call)
    options.update(flip=call.flip, length=call.length, format="lisp")
    run_and_print(specs, options)


def _note_replaced(call) -> None:
    """--flip or --length given (on the command line or in the course file) lose to the
    form's own flipParams and gameLength: say so rather than ignore them silently."""
    ctx = click.get_current_context()
    given = {"flip": ("flipParams", call.flip), "length": ("gameLength", call.length)}
    for option, (name, value) in given.items():
        if ctx.get_parameter_source(option) in (ParameterSource.COMMANDLINE,
                                                ParameterSource.DEFAULT_MAP):
            click.echo(f"pdharness: note: --{option} is replaced by the form's {name} "
                       f"({' '.join(f'{v:g}' for v in value)})", err=True)


MAX_FORM_BYTES = 1 << 20   # a monitor call names a few dozen agents: a megabyte is no call


def _form_from_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_FORM_BYTES + 1)
    if len(data) > MAX_FORM_BYTES:
        raise HarnessError(f"the form on stdin is longer than {MAX_FORM_BYTES >> 20} MiB; "
                           "a monitor call is one short Lisp form")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise HarnessError(f"the form on stdin is not UTF-8 text ({error.reason} at byte "
                           f"{error.start})") from error
