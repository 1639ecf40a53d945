"""`pdharness repl-serve`: the monitor that `(monitor ...)` starts from a student's SBCL
REPL (lisp_bridge/repl_monitor.lisp). Not for users: the REPL hands it the pipes it serves
its functions on (harness/isolation/handles/repl.py) and reads the result from --result."""
from __future__ import annotations

import os

import click

from harness.agents.builtins import BUILTINS
from harness.agents.specs import AgentSpec, Kind, builtin_spec, check_unique, strategy_spec
from harness.agents.strategy_specs import is_strategy
from harness.core.errors import AgentNotFound, HarnessError
from harness.core.safe_text import line
from harness.present import outputs
from harness.run import tournament_session as session

from .options import game_options, seed_of, settings, tournament_options


@click.command(context_settings={"help_option_names": ["-h", "--help"]}, hidden=True)
@click.argument("builtins", nargs=-1)
@click.option("--requests", "requests_fd", type=click.IntRange(min=3), required=True,
              help="The descriptor the REPL reads requests from (ours to write).")
@click.option("--served", multiple=True, metavar="NAME=FD",
              help="An agent the REPL serves, and the descriptor of its replies.")
@click.option("--result", type=click.Path(dir_okay=False), required=True,
              help="Where to write the result: one line `SCORE NAME` per agent, best first.")
@game_options
@tournament_options
def command(builtins, requests_fd, served, result, **options):
    """Run the tournament among the REPL's agents (--served) and BUILTINS, one game at a
    time, print its table and write the result for the REPL."""
    # heavy (concurrent): loaded only where used
    from harness.isolation.handles.repl import ReplChannels, serve_from

    token = os.environ.pop("PDH_REPL_TOKEN", "")
    if not token.isalnum():
        raise HarnessError("repl-serve is started by (monitor ...) in a Lisp REPL "
                           "(pdharness lisp-init), which sets PDH_REPL_TOKEN")
    if options.get("cluster"):
        raise HarnessError("a REPL serves its agents itself: no --cluster")
    replies = {}
    for entry in served:
        name, _, fd = entry.rpartition("=")
        if not name or not fd.isdigit():
            raise HarnessError(f"--served {entry}: expected NAME=FD")
        replies[name] = int(fd)
    serve_from(ReplChannels(requests_fd, replies, token))
    specs = [AgentSpec(name, Kind.REPL.spelling, Kind.REPL.spelling) for name in replies] + [
        _builtin(name) for name in builtins]
    check_unique(specs)
    options["jobs"] = 1   # the REPL answers one call at a time: one game at a time
    chosen = settings(options)
    outcome = session.run(specs, seed_of(options), chosen, quiet=True,
                          command="(monitor ...) in a Lisp REPL")
    outputs.deliver(outcome, outputs.Outputs(format="table"))
    lines = "".join(f"{score} {name}\n" for name, score in outcome.pairs())
    try:
        with open(result, "w", encoding="utf-8") as out:
            out.write(lines)
    except OSError as error:
        raise HarnessError(f"--result {result}: {error.strerror}") from error


def _builtin(name: str):
    """A name the REPL does not define: a built-in of that name (or a memory:/qtable: spec
    given as a string), never a file found somewhere."""
    if is_strategy(name):
        return strategy_spec(name)
    if name.lower() in BUILTINS:
        return builtin_spec(name.lower())
    raise AgentNotFound(f"{line(name)} is neither a function defined in this Lisp image nor "
                        f"a built-in agent ({', '.join(sorted(BUILTINS))})")
