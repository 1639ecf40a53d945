"""Options shared by tournament, monitor and play, and turning them into settings.

Every number a command line accepts is read by one of the types below: finite, within
bounds the harness can honour (a poll, an rlimit, an SQLite integer), so that a bad value is
a one-line usage error (exit 2), never an overflow deep inside a run."""
from __future__ import annotations

import math

import click

from ..agents import ISOLATION_MODES
from ..rules import DECAY_MODES
from ..seeds import SEED_LIMIT

MAX_TIMEOUT = 3600.0        # seconds per call; poll() and rlimits overflow far above this
MAX_MOVES_PER_TURN = 1000   # an answer travels in a host line of at most 4096 bytes
MAX_PAYOFF = 10 ** 6        # scores stay exact integers in every record and language
MAX_GAME_LENGTH = 10 ** 6   # turns in one game
MAX_MEMORY_MIB = 1 << 20    # 1 TiB of address space
MAX_JOBS = 1024
MAX_REPLICATES = 10_000
SQLITE_INTEGER = 2 ** 63 - 1  # seeds, ids and counts are stored in SQLite integers


class FiniteFloat(click.ParamType):
    """A real number in [low, high] (low excluded when `low_open`): never nan or inf."""

    name = "number"

    def __init__(self, low: float = -math.inf, high: float = math.inf,
                 low_open: bool = False):
        self.low, self.high, self.low_open = low, high, low_open

    def convert(self, value, param, ctx):
        try:
            number = float(value if isinstance(value, (int, float)) else str(value).strip())
        except (ValueError, OverflowError):
            self.fail(f"{_shown(value)} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{_shown(value)} is not a finite number", param, ctx)
        too_low = number <= self.low if self.low_open else number < self.low
        if too_low or number > self.high:
            bound = ">" if self.low_open else ">="
            self.fail(f"{_shown(value)} is not a number {bound} {self.low:g} and <= "
                      f"{self.high:g}", param, ctx)
        return number


def bounded(low: int, high: int = SQLITE_INTEGER) -> click.IntRange:
    """A whole number in [low, high]."""
    return click.IntRange(min=low, max=high)


def _shown(value) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "...")


SECONDS = FiniteFloat(0.0, MAX_TIMEOUT, low_open=True)
MOVES_PER_TURN = bounded(1, MAX_MOVES_PER_TURN)
JOBS = bounded(1, MAX_JOBS)
MEMORY_MIB = bounded(16, MAX_MEMORY_MIB)
GAME_LENGTH = bounded(-MAX_GAME_LENGTH, MAX_GAME_LENGTH)  # the rules say why a bad one is bad


# what --format prints: a tournament's result in every form; other commands as people's
# table or JSON only
RESULT_FORMATS = ("table", "json", "lisp", "csv")
PLAIN_FORMATS = RESULT_FORMATS[:2]


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


# how agents are confined: also `resume`'s, which never takes them from the record
isolation_options = compose(
    click.option("--timeout", type=SECONDS, default=1.0, show_default=True,
                 help="Seconds an agent may take per call."),
    click.option("--isolation", type=click.Choice(ISOLATION_MODES), default="sandbox",
                 show_default=True,
                 help="sandbox: own process in bubblewrap; process: own process; "
                      "none: inside the monitor (trusted code only)."),
    click.option("--memory-limit", type=MEMORY_MIB, default=1024,
                 show_default=True, metavar="MIB",
                 help="Address space an agent's process may use, in MiB."),
)

game_options = compose(
    click.option("--flip", nargs=2, type=FiniteFloat(), default=(0.25, 0.1), show_default=True,
                 metavar="F1 I", help="Flip chance F1 and its decay I."),
    click.option("--decay", type=click.Choice(DECAY_MODES), default=DECAY_MODES[0],
                 show_default=True, help="How the flip chance decays (see README, Rules)."),
    click.option("--moves-per-turn", type=MOVES_PER_TURN, default=3, show_default=True,
                 help="Moves an agent returns per call (1: the classic game)."),
    click.option("--payoffs", nargs=4, type=bounded(-MAX_PAYOFF, MAX_PAYOFF),
                 default=(5, 3, 1, 0), show_default=True,
                 metavar="T R P S", help="Payoff table; must keep T>R>P>S and 2R>T+S."),
    click.option("--on-fault", type=click.Choice(["cooperate", "defect"]),
                 default="cooperate", show_default=True,
                 help="The answer played for an agent's faulty turn."),
    isolation_options,
    click.option("--seed", type=bounded(0, SEED_LIMIT - 1), default=None,
                 help="Tournament seed (default: a fresh one from the OS, 63 bits; always "
                      "printed). Agents that know the seed can predict their noise: "
                      "never grade with a seed students could know."),
)

cluster_option = click.option(
    "--cluster", default=None, metavar="ADDRESS",
    help="Play on the workers of this Dask scheduler (e.g. tcp://lab1:8786; needs "
         "pip install 'pdharness[cluster]'); the result is the same.")

tournament_options = compose(
    click.option("--length", nargs=2, type=GAME_LENGTH, default=(10, 50), show_default=True,
                 metavar="LMIN LMAX", help="Game length drawn per round, inclusive (the "
                 "fixed length L L, or the cap of a geometric horizon)."),
    click.option("--horizon", type=click.Choice(("uniform", "fixed", "geometric")),
                 default="uniform", show_default=True,
                 help="Game lengths: one per round from --length (the Levinson rule), every "
                      "game --length L L, or ending after each turn with --stop-prob."),
    click.option("--stop-prob", type=FiniteFloat(0.0, 1.0), default=None, metavar="P",
                 help="--horizon geometric: the chance a game ends after each turn."),
    click.option("--jobs", "-j", type=JOBS, default=None,
                 help="1: one game at a time. More (default: every core): with --isolation "
                      "none, games run in that many forked workers; in a process or the "
                      "sandbox, one thread plays every game whose two agents are free (up "
                      "to half the agents' games at once, one host process per agent), "
                      "whatever the number. Same results either way."),
    click.option("--max-rounds", type=bounded(1), default=None,
                 help="Stop after this many rounds."),
    click.option("--max-faults", type=bounded(1), default=None,
                 help="Disqualify an agent once it has this many faults."),
    click.option("--disqualify-broken", is_flag=True,
                 help="Agents that do not load leave before round 1 "
                      "(default: they play the default answer)."),
    cluster_option,
)


def game_params(options):
    from ..rules import FlipParams, GameParams, Payoffs

    return GameParams(
        flip=FlipParams(options["flip"][0], options["flip"][1], options["decay"]),
        moves_per_turn=options["moves_per_turn"],
        payoffs=Payoffs(*options["payoffs"]),
        default_answer="C" if options["on_fault"] == "cooperate" else "D")


def isolation(options):
    from ..handles.opening import Isolation

    return Isolation(options["isolation"], options["timeout"],
                     options["memory_limit"] * 1024 * 1024)


def settings(options):
    from ..rules import GameLength
    from ..tournament import Settings

    low, high = options["length"]
    return Settings(game=game_params(options),
                    length=GameLength(low, high, options.get("horizon", "uniform"),
                                      options.get("stop_prob")),
                    isolation=isolation(options),
                    jobs=options["jobs"],
                    max_rounds=options["max_rounds"],
                    max_faults=options["max_faults"],
                    disqualify_broken=options["disqualify_broken"],
                    cluster=options.get("cluster"))


def seed_of(options, graded: bool = False) -> int:
    """The run's seed: --seed, else a fresh one. A graded run (tournament, monitor) given
    one by hand says on stderr that agents who know it can predict their noise."""
    from ..seeds import fresh_seed, known_seed_note

    if options["seed"] is None:
        return fresh_seed()
    if graded:
        click.echo(known_seed_note(options["seed"]), err=True)
    return options["seed"]
