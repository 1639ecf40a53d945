"""The `pdharness` command line. Each command lives in harness/cli/commands/<name>.py and is
imported only when used, so `pdharness --help` and every command start quickly."""
from __future__ import annotations

import errno
import importlib
import os
import sys

import click

from harness.core.package import __version__

# imports inside functions here are deferred (`pdharness` starts light)

COMMANDS = {
    "tournament": "Run the Levinson tournament.",
    "monitor": "Run the original Lisp call, e.g. \"(monitor '(.25 .1) '(10 50) '(...))\".",
    "play": "Play one game between two agents, with a turn-by-turn trace.",
    "validate": "Check submissions before upload: name, contract, a short seeded game.",
    "new": "Write a correctly named agent template.",
    "show": "Inspect a recorded run (--db FILE).",
    "resume": "Finish an interrupted recorded run.",
    "experiment": "Run conditions x replicates of the tournament and compare them.",
    "train": "Train a Q-table agent against the agent types of an experiment file.",
    "ladder": "One pass of the term's ladder: new submissions validated, owed games played, rated.",
    "autograder": "Write a Gradescope autograder bundle (setup.sh, run_autograder).",
    "list-strategies": "List the Axelrod library's strategies (axelrod:NAME) with its classifier.",
    "moran": "Run a seeded Moran process: a population of agents until one type fixes.",
    "lisp-init": "Print the path of the Lisp file that defines (monitor ...) in an SBCL REPL.",
}
# started by that Lisp file, not by users: not listed
HIDDEN = {"repl-serve": "Play a tournament whose agents a Lisp REPL serves over pipes."}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return [name for name in COMMANDS if self._module(name) is not None]

    def get_command(self, ctx, name):
        from .course import config_option

        module = self._module(name)
        command = getattr(module, "command", None) if module else None
        if command is None:
            return None
        # every module's click function is called `command`: the command is named as the
        # group lists it (what the generated reference and click's own messages show)
        command.name = name
        return config_option(command)

    def format_commands(self, ctx, formatter):
        rows = [(name, COMMANDS[name]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    @staticmethod
    def _module(name):
        if name not in COMMANDS and name not in HIDDEN:
            return None
        module = f"harness.cli.commands.{name.replace('-', '_')}"
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name == module:
                return None
            raise


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=None, version=__version__)
def cli():
    """pdharness: the Levinson Prisoner's Dilemma tournament monitor."""


def fail(message: str, status: int = 2):
    from harness.core.safe_text import line  # messages quote names, paths and agents' errors
    from harness.present.colour import paint

    click.echo(f"pdharness: {paint('error:', 'error', err=True)} {line(message)}", err=True)
    sys.exit(status)


def main(argv=None):
    from harness.core.errors import HarnessError
    from harness.core.interrupts import install

    install()  # Ctrl-C stops a run even while an in-process agent is running
    try:
        status = cli.main(args=argv, prog_name="pdharness", standalone_mode=False)
    except click.UsageError as error:
        # bare `pdharness`: show the help
        if type(error).__name__ == "NoArgsIsHelpError" and error.ctx is not None:
            click.echo(error.ctx.get_help())
            sys.exit(0)
        fail(error.format_message())
    except click.ClickException as error:
        fail(error.format_message(), error.exit_code if error.exit_code != 1 else 2)
    except HarnessError as error:
        fail(str(error))
    except (KeyboardInterrupt, click.Abort):
        from harness.core.interrupts import exit_status

        click.echo("pdharness: interrupted", err=True)
        sys.exit(exit_status())
    except BrokenPipeError:
        sys.exit(0)
    except OSError as error:
        if error.errno not in _PATH_ERRORS or error.filename is None:
            _internal(error)
        fail(f"{_shortened(error.filename)}: {error.strerror}")
    except Exception as error:
        _internal(error)
    sys.exit(status if isinstance(status, int) else 0)


# A path given on the command line that the system refuses (too long, missing, not allowed):
# the user's input, wherever in a command it is first used, so a one-line usage error
_PATH_ERRORS = frozenset({errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR, errno.EISDIR,
                          errno.EACCES, errno.EPERM, errno.ELOOP, errno.EROFS, errno.EEXIST,
                          errno.ENOSPC, errno.EXDEV})


def _shortened(filename) -> str:
    text = os.fsdecode(filename) if isinstance(filename, (str, bytes)) else str(filename)
    return text if len(text) <= 80 else text[:60] + "..." + text[-17:]


def _internal(error: Exception):
    """A bug of ours: still one line, the traceback on request."""
    if os.environ.get("PDHARNESS_DEBUG"):
        raise error
    fail(f"internal error: {type(error).__name__}: {error} "
         "(set PDHARNESS_DEBUG=1 to see where)", 70)
