"""`pdharness lisp-init`: where the Lisp file is that gives an SBCL REPL `(monitor ...)`."""
from __future__ import annotations

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
def command():
    """Print the path of a Lisp file that, loaded into SBCL (`sbcl --load "$(pdharness
    lisp-init)"`, or `(load "PATH")` in a running REPL), defines (monitor flip-params
    game-length agents &key seed moves-per-turn max-rounds timeout decay isolation print)
    as in the course: the REPL's own functions play as themselves, other names as
    pdharness's built-ins, and it returns ((agent score) ...), best first."""
    from lisp_bridge.repl_monitor_file import repl_monitor_file  # `pdharness` starts light

    click.echo(str(repl_monitor_file()))
