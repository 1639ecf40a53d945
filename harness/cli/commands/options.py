"""Options shared by tournament, monitor and play, and turning them into settings.

The options are built from the declared parameters (harness/engine/parameters.py): their
names, types and bounds, help and defaults are written there once, as plain values, for the
command line, the course file, the Python API and the JSON alike; here each plain type
becomes the click type that reads it (`click_type`)."""
from __future__ import annotations

import math
from functools import lru_cache

import click

from harness.agents.bundles import use_max_mib
from harness.core.seeds import fresh_seed, known_seed_note
from harness.engine import parameters
from harness.engine.parameters import MAX_GAME_LENGTH as MAX_GAME_LENGTH
from harness.present.formats import FORMATS


class FiniteFloat(click.ParamType):
    """click's reading of a parameters.Number: a real number in [low, high], never nan or
    inf (its check and words are the Number's)."""

    name = "number"

    def __init__(self, low: float = -math.inf, high: float = math.inf,
                 low_open: bool = False):
        self.number = parameters.Number(low, high, low_open)

    def convert(self, value, param, ctx):
        try:
            return self.number.convert(value)
        except parameters.BadValue as error:
            self.fail(str(error), param, ctx)


class Declared(click.ParamType):
    """click's reading of a plain type with a convert of its own (a pip requirement)."""

    def __init__(self, kind):
        self.kind = kind
        self.name = kind.name

    def convert(self, value, param, ctx):
        try:
            return self.kind.convert(value)
        except parameters.BadValue as error:
            self.fail(str(error), param, ctx)


@lru_cache(maxsize=None)
def click_type(kind: parameters.Kind) -> click.ParamType:
    """The click type that reads a declared parameter's plain type, under its bounds: one
    per plain type, so every option of a parameter has the very same one."""
    if isinstance(kind, parameters.Whole):
        return click.IntRange(min=kind.low, max=kind.high)
    if isinstance(kind, parameters.Number):
        return FiniteFloat(kind.low, kind.high, kind.low_open)
    if isinstance(kind, parameters.Choice):
        return click.Choice(kind.choices)
    if isinstance(kind, parameters.Flag):
        return click.BOOL
    if isinstance(kind, parameters.Requirement):
        return Declared(kind)
    return click.STRING


def bounded(low: int, high: int = parameters.SQLITE_INTEGER) -> click.ParamType:
    """A whole number in [low, high], for an option that is no declared parameter."""
    return click_type(parameters.bounded(low, high))


# what --format prints: a tournament's result in every registered form (present/formats.py,
# the first the default); other commands as people's table or JSON only
RESULT_FORMATS = tuple(FORMATS)
PLAIN_FORMATS = ("table", "json")


def format_option(formats=PLAIN_FORMATS, help: str | None = None):
    """`--format`, its first choice the default."""
    return click.option("--format", "format", type=click.Choice(formats), default=formats[0],
                        show_default=True, help=help)


def compose(*decorators):
    """Several click decorators as one."""
    def apply(function):
        for decorator in reversed(decorators):
            function = decorator(function)
        return function
    return apply


def option(name: str, **changes):
    """The command-line option of a declared parameter (`changes`: e.g. another help)."""
    parameter = parameters.BY_NAME[name]
    default = parameter.default
    declared = dict(type=click_type(parameter.type), default=default, help=parameter.help,
                    show_default=default is not None and not parameter.flag)
    if parameter.flag:  # click 8.5 leaves a flag without a default unset, not False
        declared = dict(is_flag=True, default=bool(default), help=parameter.help)
    if parameter.nargs > 1:
        declared["nargs"] = parameter.nargs
    if parameter.multiple:
        declared.update(multiple=True, default=(), show_default=False)
    if parameter.metavar:
        declared["metavar"] = parameter.metavar
    return click.option(*parameter.flags, **{**declared, **changes})


def options(*names: str):
    return compose(*(option(name) for name in names))


def _use_bundle_limit(ctx, param, value):
    use_max_mib(value)   # before any agent is opened, from the command line or course file
    return value


# `--max-bundle-mib`: applied as it is read (every bundle opened after is held to it), so
# no command passes it on
bundle_limit_option = option("max_bundle_mib", callback=_use_bundle_limit, expose_value=False)

def _use_long_run(ctx, param, value):
    from harness.agents.axelrod_strategies import allow_long_run  # `pdharness` starts light

    allow_long_run(value)   # before any agent is resolved, as --max-bundle-mib
    return value


# `--allow-long-run`: axelrod: strategies Axelrod classifies as of long run time are
# refused unless it is given (harness/agents/axelrod_strategies.py)
long_run_option = click.option(
    "--allow-long-run", is_flag=True, default=False, callback=_use_long_run,
    expose_value=False, help="Play axelrod: strategies that Axelrod classifies as of long "
    "run time (refused otherwise; pdharness list-strategies marks them).")

# how agents are confined: also `resume`'s, which never takes them from the record
isolation_options = compose(options("timeout", "load_timeout", "isolation", "memory_limit"),
                            bundle_limit_option, long_run_option)
# what agents may import: not `resume`'s, which plays the recorded declaration
agent_package_option = option("agent_package")
# ... for commands whose conditions come from an experiment or population file (experiment,
# train): the file's own "agent-package", where it gives one, replaces it
file_packages_option = option("agent_package", help=(
    f"{parameters.BY_NAME['agent_package'].help} An agent-package the file gives replaces "
    "it where given (its parameters, or a condition's)."))

game_options = compose(
    options("flip", "decay", "moves_per_turn", "payoffs", "on_fault"),
    isolation_options,
    agent_package_option,
    option("seed"),
)

cluster_option = option("cluster")


def replicates_option(help: str):
    """`--replicates N` (tournament, monitor), bounded by parameters.REPLICATES as an
    experiment file's "replicates" is."""
    return click.option("--replicates", type=click_type(parameters.REPLICATES), default=None,
                        metavar="N", help=help)


def unless_given(name: str, help: str):
    """A declared parameter's option with no default of its own (experiment, train: the
    file's value, else the usual default, applies), under its declared type and bounds."""
    return option(name, default=None, show_default=False, help=help)


def file_limit_options(function):
    """`--timeout` and `--memory-limit` for commands whose agents and parameters come from
    an experiment or population file (experiment, train): tournament's own options (the
    same bounds), given for the whole run; the file may lower them per condition, never
    raise them (harness/run/experiment/plan.py, LIMITS). None when not given: the default."""
    for name in reversed(("timeout", "memory_limit")):
        declared = parameters.BY_NAME[name]
        function = option(name, default=None, show_default=False, help=(
            f"{declared.help[:-1]} (default {declared.default:g}); the file may lower it, "
            "never raise it.")) (function)
    return function

# the help of the tournament's options that says more where a submission is checked
_CHECKED_HELP = {
    "isolation": "How agents run, as in `tournament`: sandbox falls back to process, with a "
                 "note, where the sandbox is not available; none runs them inside this "
                 "process, for trusted code only (a call that never returns hangs).",
    "moves_per_turn": "Moves an answer must hold, as the tournament will ask.",
    "length": "The tournament's game lengths: the longest game played against random is "
              "LMAX turns long.",
    "max_bundle_mib": "The most a submission bundle (a folder or .zip named after its agent: "
                      "its file with its data and helper modules) may hold, expanded, in MiB.",
}


def agent_run_options(but: tuple[str, ...] = ()):
    """Every tournament option that shapes an agent's run (parameters.AGENT_RUN: limits,
    rules, isolation), but `but`, for the commands that check a submission (validate, the
    autograder): from the command line or the course file as the tournament takes them, so
    a file that passes plays under them."""
    return compose(*(_checked_option(name) for name in parameters.AGENT_RUN if name not in but))


def _checked_option(name: str):
    """One of agent_run_options: a bundle's limit is applied as it is read, as everywhere,
    and passed on too (the autograder writes it into its settings)."""
    extra: dict[str, object] = {"help": _CHECKED_HELP[name]} if name in _CHECKED_HELP else {}
    if name == "max_bundle_mib":
        extra["callback"] = _use_bundle_limit
    return option(name, **extra)


tournament_options = options("length", "horizon", "stop_prob", "jobs", "max_rounds",
                             "max_faults", "keep_broken", "disqualify_broken", "cluster")


def game_params(values):
    return parameters.game_params(values)


def isolation(values):
    return parameters.isolation(values)


def settings(values):
    return parameters.settings(values)


def seed_of(options, graded: bool = False) -> int:
    """The run's seed: --seed, else a fresh one. A graded run (tournament, monitor) given
    one by hand says on stderr that agents who know it can predict their noise."""
    if options["seed"] is None:
        return fresh_seed()
    if graded:
        click.echo(known_seed_note(options["seed"]), err=True)
    return options["seed"]
