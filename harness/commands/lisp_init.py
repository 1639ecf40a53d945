"""`pdharness lisp-init`: where the Lisp file is that gives an SBCL REPL `(monitor ...)`."""
from __future__ import annotations

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
def command():
    """Print the path of lisp_bridge/repl_monitor.lisp. Loaded into SBCL, e.g. `(load
    (string-right-trim '(#\\Newline) (uiop:run-program ...)))` or simply `sbcl --load
    "$(pdharness lisp-init)"`, it defines (monitor flip-params game-length agents &key ...)
    as in the course: your REPL's functions play as themselves, other names as pdharness's
    built-ins, and it returns ((agent score) ...), best first."""
    from lisp_bridge.repl import repl_monitor_file

    click.echo(str(repl_monitor_file()))
