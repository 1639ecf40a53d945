"""The tournament's parameters, declared once as plain data: each one's name, type and
bounds, help, default, key in the JSON "params" object and keyword in the Python API.

The table feeds the command line (harness/cli/commands/options.py builds the click options
from it, and the course file reads those options: its keys are the options' names without
the dashes), the Python API (api.py takes the same values under the same checks),
experiment conditions (harness/run/experiment/plan.py) and the JSON. A default is not
written here: it is read from the settings a run makes by default (`Settings()`: the rules'
own defaults in rules.py, the confinement's in handles/opening.py), so there is one place
that says it.

Every value is read by one of the types below: finite, within bounds the harness can
honour (a poll, an rlimit, an SQLite integer), so that a bad value is a one-line usage
error, never an overflow deep inside a run. They are plain values (click is the command
line's alone); a bad value is said in the command line's own words, so the command line, a
file and the API say the same thing about it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from harness.agents.bundles import MAX_BUNDLE_MIB
from harness.agents.specs import ISOLATION_MODES
from harness.core.errors import HarnessError
from harness.core.horizons import HORIZONS
from harness.core.rules import DECAY_MODES, MAX_MOVES_PER_TURN
from harness.core.seeds import SEED_LIMIT
from harness.isolation.limits import MIB

MAX_TIMEOUT = 3600.0        # seconds per call; poll() and rlimits overflow far above this
MAX_PAYOFF = 10 ** 6        # scores stay exact integers in every record and language
MAX_GAME_LENGTH = 10 ** 6   # turns in one game
MAX_MEMORY_MIB = 1 << 20    # 1 TiB of address space
MAX_JOBS = 1024
MAX_REPLICATES = 10_000
SQLITE_INTEGER = 2 ** 63 - 1  # seeds, ids and counts are stored in SQLite integers
# One value, two spellings the interface fixes: the option `--on-fault` (course key and API
# `on_fault`) says it as a word, the game, the JSON and the record (`default_answer`) as the
# move the word means; this table is the one translation between them
DEFAULT_ANSWER_OF = {"cooperate": "C", "defect": "D"}


class BadValue(ValueError):
    """A value its type refuses; str() says why, as the command line says it."""


@dataclass(frozen=True)
class Number:
    """A real number in [low, high] (low excluded when `low_open`): never nan or inf."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    name = "number"

    def convert(self, value) -> float:
        try:
            number = float(value if isinstance(value, (int, float)) else str(value).strip())
        except (ValueError, OverflowError):
            raise BadValue(f"{_shown(value)} is not a number") from None
        if not math.isfinite(number):
            raise BadValue(f"{_shown(value)} is not a finite number")
        too_low = number <= self.low if self.low_open else number < self.low
        if too_low or number > self.high:
            bound = ">" if self.low_open else ">="
            raise BadValue(f"{_shown(value)} is not a number {bound} {self.low:g} and <= "
                           f"{self.high:g}")
        return number


@dataclass(frozen=True)
class Whole:
    """A whole number in [low, high]. Read as the command line reads one (int(): "12",
    2.5 is 2); a list or other thing that is no number at all is a TypeError. An infinite
    number (a file's Infinity) is refused like a word."""

    low: int
    high: int = SQLITE_INTEGER
    name = "integer range"

    def convert(self, value) -> int:
        try:
            number = int(value)
        except (ValueError, OverflowError):
            raise BadValue(f"{value!r} is not a valid {self.name}.") from None
        if not self.low <= number <= self.high:
            raise BadValue(f"{number} is not in the range {self.low}<=x<={self.high}.")
        return number

    def holds(self, value) -> bool:
        """Whether `value` is a whole number (not a bool) within these bounds: for the
        bounded values a file holds (an experiment's seed and replicates, a training
        seed), checked against the same bounds as the option."""
        return (not isinstance(value, bool) and isinstance(value, int)
                and self.low <= value <= self.high)


@dataclass(frozen=True)
class Choice:
    """One of `choices`, compared as text."""

    choices: tuple[str, ...]

    def convert(self, value) -> str:
        for choice in self.choices:
            if str(choice) == str(value):
                return choice
        listed = ", ".join(map(repr, self.choices))
        one = len(self.choices) == 1
        raise BadValue(f"{value!r} is not {listed}." if one
                       else f"{value!r} is not one of {listed}.")


# the words the command line takes for true and false
BOOLEAN_WORDS = {"1": True, "0": False, "yes": True, "no": False, "true": True,
                 "false": False, "on": True, "off": False, "t": True, "f": False, "y": True,
                 "n": False, "": False}


@dataclass(frozen=True)
class Flag:
    """True or false (a bool, or one of BOOLEAN_WORDS)."""

    def convert(self, value) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):   # as click.BOOL took them
            return bool(value)
        found = BOOLEAN_WORDS.get(value.strip().lower()) if isinstance(value, str) else None
        if found is None:
            raise BadValue(f"{value!r} is not a valid boolean. Recognized values: "
                           f"{', '.join(sorted(BOOLEAN_WORDS))}")
        return found


@dataclass(frozen=True)
class Text:
    """Any text."""

    def convert(self, value) -> str:
        return str(value)


@dataclass(frozen=True)
class Requirement:
    """A pip requirement (`numpy`, `numpy>=2`, `scikit-learn[alldeps]`), kept as written in
    its normal form."""

    name = "requirement"

    def convert(self, value) -> str:
        try:
            # packaging is a dependency, but a harness copied in without them may lack it
            from packaging.requirements import InvalidRequirement, Requirement as Parsed
        except ImportError:   # the harness copied in, not installed: taken as written
            return str(value).strip()
        try:
            return str(Parsed(str(value)))
        except InvalidRequirement:
            raise BadValue(f"{_shown(value)} is not a pip requirement (e.g. numpy or "
                           "numpy>=2)") from None


Kind = Number | Whole | Choice | Flag | Text | Requirement


def bounded(low: int, high: int = SQLITE_INTEGER) -> Whole:
    """A whole number in [low, high]."""
    return Whole(low, high)


def _shown(value) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def invalid(error: BadValue, option: str | None = None) -> str:
    """A refused value in the command line's words, naming its option when there is one."""
    return f"Invalid value for '{option}': {error}" if option else f"Invalid value: {error}"


SECONDS = Number(0.0, MAX_TIMEOUT, low_open=True)
MOVES_PER_TURN = bounded(1, MAX_MOVES_PER_TURN)
JOBS = bounded(1, MAX_JOBS)
SEED = bounded(0, SEED_LIMIT - 1)   # every seed: a tournament's, an experiment's, training's
REPLICATES = bounded(1, MAX_REPLICATES)
MEMORY_MIB = bounded(16, MAX_MEMORY_MIB)
BUNDLE_MIB = bounded(1, 64 * 1024)
GAME_LENGTH = bounded(1, MAX_GAME_LENGTH)   # what --help shows is what a game may be


def _same(value):
    return value


@dataclass(frozen=True)
class Parameter:
    """One parameter. Its value is held as the command line holds it (`--flip 0.25 0.1` is
    (0.25, 0.1), `--memory-limit` is MiB); `read` finds that value in a Settings."""

    name: str                               # options key; --name-with-dashes; course key
    type: Kind                              # with its bounds
    help: str
    read: Callable[[Any], Any] | None       # Settings -> value (None: not in Settings)
    nargs: int = 1
    metavar: str | None = None
    short: str | None = None                # e.g. -j
    flag: bool = False
    multiple: bool = False                  # repeatable: a tuple of values
    course_key: str | None = None           # the course file's key, if not the option's
    api: str | None = ""                    # harness.api.monitor keyword ("": the name,
                                            # None: a positional argument of its own)
    json: str | None = None                 # key in the JSON "params" object
    to_json: Callable[[Any], Any] = _same
    in_json: Callable[[Any], bool] = lambda settings: True
    # whether it shapes an agent's run: how its calls are made, what they are given, the
    # limits they run under. `validate` (and the autograder) apply every such parameter as
    # the tournament does, so that a file that validates plays (AGENT_RUN). No default:
    # each row says, and tests/test_validate_limits.py plays a file against each
    plays: bool = field(kw_only=True)

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def keyword(self) -> str | None:
        return self.name if self.api == "" else self.api

    @property
    def default(self):
        return None if self.read is None else self.read(_default_settings())

    @property
    def flags(self) -> tuple[str, ...]:
        """How the command line spells it: --name, and its short form if any."""
        return (self.option,) + ((self.short,) if self.short else ())

    def convert(self, value):
        """The value checked as the command line checks it (BadValue if bad)."""
        if value is None or self.flag and isinstance(value, bool):
            return value
        if self.multiple:
            given = [value] if isinstance(value, str) else list(value)
            return tuple(self.type.convert(v) for v in given)
        if self.nargs > 1:
            values = tuple(value)
            if len(values) != self.nargs:
                raise BadValue(f"expected {self.nargs} values, not {len(values)}")
            return tuple(self.type.convert(v) for v in values)
        return self.type.convert(value)


@lru_cache(maxsize=1)
def _default_settings():
    from .tournament import Settings  # what a run is made of: see settings()

    return Settings()


def _unusual(read):
    """In the JSON only when not at its default, so the usual shape stays as it was."""
    return lambda settings: read(settings) != read(_default_settings())


def _uncommon_horizon(settings) -> bool:
    """horizon and stop_prob are in the JSON only for a horizon other than the Levinson
    one, so the usual shape stays as it was."""
    return settings.length.horizon != "uniform"


# In the JSON's order. Which command takes which is said where the options are built.
TABLE = (
    Parameter("flip", Number(), "Flip chance F1 and its decay I.",
              lambda s: (s.game.flip.start, s.game.flip.decay), nargs=2, metavar="F1 I",
              api=None, json="flip", to_json=list, plays=True),
    Parameter("length", GAME_LENGTH, "Game length drawn per round, inclusive (the fixed "
              "length L L, or the cap of a geometric horizon).",
              lambda s: (s.length.low, s.length.high), nargs=2, metavar="LMIN LMAX",
              api=None, json="length", to_json=list, plays=True),
    Parameter("moves_per_turn", MOVES_PER_TURN,
              "Moves an agent returns per call (1: the classic game).",
              lambda s: s.game.moves_per_turn, json="moves_per_turn", plays=True),
    Parameter("decay", Choice(DECAY_MODES),
              "How the flip chance decays (see docs/rules.md).",
              lambda s: s.game.flip.mode, json="decay", plays=True),
    Parameter("timeout", SECONDS, "Seconds an agent may take per call.",
              lambda s: s.isolation.timeout, json="timeout", plays=True),
    Parameter("load_timeout", SECONDS,
              "Seconds an agent's file may take to load (its module body, a Lisp file's "
              "load), apart from its calls' --timeout; the declared libraries it imports "
              "are imported before, once per agent.",
              lambda s: s.isolation.load_timeout, json="load_timeout",
              in_json=_unusual(lambda s: s.isolation.load_timeout), plays=True),
    Parameter("agent_package", Requirement(),
              "A library agents may import besides the standard library, hy and hyrule "
              "(repeatable; a pip requirement such as numpy>=2, installed here). Course "
              "file: agent-packages = [\"numpy\"].",
              lambda s: s.isolation.agent_packages, metavar="REQ", multiple=True,
              course_key="agent-packages", api="agent_packages", json="agent_packages",
              to_json=list, in_json=_unusual(lambda s: s.isolation.agent_packages),
              plays=True),
    Parameter("payoffs", bounded(-MAX_PAYOFF, MAX_PAYOFF),
              "Payoff table; must keep T>R>P>S and 2R>T+S.",
              lambda s: s.game.payoffs.as_tuple(), nargs=4, metavar="T R P S",
              json="payoffs", to_json=lambda v: dict(zip("TRPS", v, strict=True)), plays=True),
    Parameter("on_fault", Choice(tuple(DEFAULT_ANSWER_OF)),
              "The answer played for an agent's faulty turn.",
              lambda s: next(k for k, v in DEFAULT_ANSWER_OF.items() if v == s.game.default_answer),
              json="default_answer", to_json=DEFAULT_ANSWER_OF.get, plays=False),
    Parameter("isolation", Choice(ISOLATION_MODES),
              "sandbox: own process in bubblewrap; process: own process; "
              "none: inside the monitor (trusted code only).",
              lambda s: s.isolation.mode, json="isolation", plays=True),
    Parameter("max_rounds", bounded(1), "Stop after this many rounds.",
              lambda s: s.max_rounds, json="max_rounds", plays=False),
    Parameter("max_faults", bounded(1), "Disqualify an agent once it has this many faults.",
              lambda s: s.max_faults, json="max_faults", plays=False),
    Parameter("horizon", Choice(HORIZONS),
              "Game lengths: one per round from --length (the Levinson rule), every game "
              "--length L L, or ending after each turn with --stop-prob.",
              lambda s: s.length.horizon, json="horizon", in_json=_uncommon_horizon, plays=False),
    Parameter("stop_prob", Number(0.0, 1.0),
              "--horizon geometric: the chance a game ends after each turn.",
              lambda s: s.length.stop_prob, metavar="P", json="stop_prob",
              in_json=_uncommon_horizon, plays=False),
    Parameter("memory_limit", MEMORY_MIB,
              "Address space an agent's process may use, in MiB.",
              lambda s: s.isolation.memory_limit // MIB, metavar="MIB",
              api="memory_limit_mib", plays=True),
    Parameter("max_bundle_mib", BUNDLE_MIB,
              "The most a submission bundle (a folder or .zip named after its agent) may "
              "hold, expanded, in MiB.", lambda s: MAX_BUNDLE_MIB, metavar="MIB",
              api=None, plays=True),
    Parameter("jobs", JOBS,
              "1: one game at a time. More (default: every core): with --isolation none, "
              "games run in that many forked workers; in a process or the sandbox, one "
              "thread plays every game whose two agents are free (up to half the agents' "
              "games at once, one host process per agent), whatever the number. Same "
              "results either way.", lambda s: s.jobs, short="-j", plays=False),
    Parameter("keep_broken", Flag(),
              "Agents that do not load play the default answer in every game and are "
              "ranked with the others (default: they are disqualified before round 1 and "
              "rank below every agent that loads).", lambda s: not s.disqualify_broken,
              flag=True, plays=False),
    # the default since agents that do not load are disqualified; still taken, so that older scripts and course files run
    Parameter("disqualify_broken", Flag(),
              "Agents that do not load leave before round 1 (the default; see "
              "--keep-broken).", None, flag=True, plays=False),
    Parameter("cluster", Text(),
              "Play on the workers of this Dask scheduler (e.g. tcp://lab1:8786; needs "
              "pip install 'pdharness[cluster]'); the result is the same.",
              lambda s: s.cluster, metavar="ADDRESS", plays=False),
    Parameter("seed", SEED,
              "Tournament seed (default: a fresh one from the OS, 63 bits; always printed). "
              "Agents that know the seed can predict their noise: never grade with a seed "
              "students could know.", None, plays=False),
)
BY_NAME = {parameter.name: parameter for parameter in TABLE}
# what validate applies as the tournament does (`plays`). Left out, each for a reason: the
# default answer (--on-fault) plays only for a faulty turn, and a file with one fault does
# not validate; a horizon (--horizon, --stop-prob) chooses lengths up to --length's LMAX,
# which validate's longest game is; the rest is the tournament's own (rounds, faults to
# disqualify, jobs, where it runs, its seed)
AGENT_RUN = tuple(parameter.name for parameter in TABLE if parameter.plays)


def defaults() -> dict:
    """Every parameter's value when none is given."""
    return {parameter.name: parameter.default for parameter in TABLE}


def settings(values: dict):
    """The Settings for parameter values by name, as the command line holds them (those
    missing at their defaults), made here once, each part checking its own values."""
    # the table is plain values, read by the command line's options before any run: what a
    # run is made of is imported only when one is made
    from harness.core.rules import FlipParams, GameLength, GameParams, Payoffs
    from harness.isolation.handles.isolation_settings import Isolation

    from .tournament import Settings

    values = {**defaults(), **values}
    (flip_start, flip_decay), (low, high) = values["flip"], values["length"]
    return Settings(
        game=GameParams(flip=FlipParams(flip_start, flip_decay, values["decay"]),
                        moves_per_turn=values["moves_per_turn"],
                        payoffs=Payoffs(*values["payoffs"]),
                        default_answer=DEFAULT_ANSWER_OF[values["on_fault"]]),
        length=GameLength(low, high, values["horizon"], values["stop_prob"]),
        isolation=Isolation(values["isolation"], values["timeout"],
                            values["memory_limit"] * MIB, values["load_timeout"],
                            tuple(values["agent_package"] or ())),
        jobs=values["jobs"], max_rounds=values["max_rounds"], max_faults=values["max_faults"],
        disqualify_broken=_disqualify_broken(values), cluster=values["cluster"])


def _disqualify_broken(values: dict) -> bool:
    """Whether agents that do not load leave before round 1: unless --keep-broken, which
    contradicts --disqualify-broken (the default, still taken from older scripts)."""
    if values["keep_broken"] and values.get("disqualify_broken"):
        raise HarnessError("--keep-broken and --disqualify-broken contradict each other: "
                           "give one (disqualifying is the default)")
    return not values["keep_broken"]


def game_params(values: dict):
    """The game's part of the settings for these values (the rest at their defaults)."""
    return settings(_only(values, GAME_PARAMETERS)).game


def isolation(values: dict):
    """How agents are confined, for these values (the rest at their defaults)."""
    return settings(_only(values, ISOLATION_PARAMETERS)).isolation


GAME_PARAMETERS = ("flip", "decay", "moves_per_turn", "payoffs", "on_fault")
ISOLATION_PARAMETERS = ("isolation", "timeout", "memory_limit", "load_timeout",
                        "agent_package")


def _only(values: dict, names) -> dict:
    """Only the values of these parameters: a game's or confinement's settings do not fail
    on another part's value (`play` reads --length on its own)."""
    return {name: values[name] for name in names if name in values}


def as_json(settings) -> dict:
    """The JSON "params" object (docs/interface.md) of these settings."""
    shown = {}
    for parameter in TABLE:
        if parameter.json and parameter.read and parameter.in_json(settings):
            shown[parameter.json] = parameter.to_json(parameter.read(settings))
    return shown


def from_api(options: dict) -> dict:
    """harness.monitor's keywords as parameter values, each checked as the command line
    checks it: a bad one is one HarnessError line; an unknown keyword a TypeError."""
    by_keyword = {p.keyword: p for p in TABLE if p.keyword}
    values = {}
    for keyword, value in options.items():
        parameter = by_keyword.get(keyword)
        if parameter is None:
            raise TypeError(f"monitor() got an unexpected keyword argument {keyword!r}")
        values[parameter.name] = checked(parameter, value, keyword)
    return values


def checked(parameter: Parameter, value, where: str):
    try:
        return parameter.convert(value)
    except BadValue as error:
        message = " ".join(invalid(error).split())[:200]
        raise HarnessError(f"{where}: {message}") from None
    except (TypeError, ValueError):
        raise HarnessError(f"{where}: not a value {where} takes: {_shown(value)}") from None
