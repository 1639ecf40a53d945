"""An experiment file: agent types, replicates, and conditions that override tournament
parameters by their command-line names.

    {"types": [{"id": "tft", "agent": "titfortat", "count": 3}, ...],
     "replicates": 5,
     "parameters": {"length": [20, 40]},                 # for every condition (optional)
     "conditions": [{"name": "quiet", "flip": [0.0, 0.0]},
                    {"name": "noisy", "flip": [0.25, 0.1]}]}

A condition may also give its own "types" (a population of its own), and `"chat": true`
or false for its language models (`llm:NAME` types; harness/agents/llm). Parameters not given
keep the defaults of `pdharness tournament`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from harness.agents.llm.config import declared
from harness.agents.population import MAX_FILE_BYTES, parse_file, population_types, read_bounded
from harness.agents.specs import Kind
from harness.core.errors import HarnessError
from harness.engine.parameters import BY_NAME, REPLICATES, SEED, TABLE, BadValue, invalid, settings

if TYPE_CHECKING:
    from harness.engine.tournament import Settings

TOP_LEVEL = ("types", "replicates", "conditions", "parameters", "seed", "training",
             "title", "description", "llm")
# tournament options a condition may set (by their command-line names, - or _ alike): all
# declared parameters but those the command line gives the whole experiment
PARAMETERS = tuple(p.name for p in TABLE
                   if p.name not in ("isolation", "seed", "jobs", "cluster", "max_bundle_mib"))
# the limits that say what an agent may use (seconds per call, MiB per process): the person
# at the command line sets them for the whole run (--timeout, --memory-limit, or a course
# file named with --config); an experiment or population file may lower them for its
# conditions, never raise them (a file handed to an instructor must not widen
# what its agents reach). Game rules (lengths, flips, payoffs...) are the file's to choose.
LIMITS = {"timeout": ("a time limit per call", "--timeout", "s"),
          "memory_limit": ("a memory limit", "--memory-limit", " MiB")}
CONDITION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.+-]{0,39}")


@dataclass(frozen=True)
class Condition:
    name: str
    parameters: dict          # every parameter as the tournament options hold it
    settings: Settings
    types: list               # [harness.agents.population.AgentType]

    def specs(self) -> list:
        return [spec for agent_type in self.types for spec in agent_type.copies()]


@dataclass(frozen=True)
class Experiment:
    path: Path
    content: bytes            # the file as read (the record keeps it, for resume)
    replicates: int
    conditions: list[Condition]
    seed: int | None
    title: str | None
    # what agents may import as the command line or course file declares it (--agent-package),
    # where a condition's own "agent-package" does not replace it: the record keeps it
    agent_packages: tuple[str, ...] = ()
    # the limits the command line gave the whole run (`ceiling`): resume is given them again
    limits: dict = field(default_factory=dict)


def load(path, isolation: str | None = None, limits: dict | None = None,
         packages: tuple[str, ...] = ()) -> Experiment:
    """The experiment in the file at `path`; `isolation`, `limits` ({"timeout": s,
    "memory_limit": MiB}, None for the default) and `packages` (--agent-package) as the
    command line gives them."""
    path = Path(path)
    return from_record(read_bounded(path, MAX_FILE_BYTES, "an experiment file"), path,
                       isolation, limits, packages)


def from_record(content: bytes, path, isolation: str | None,
                limits: dict | None = None, packages: tuple[str, ...] = ()) -> Experiment:
    """From the file's contents (as read, or as an experiment's record keeps them)."""
    path = Path(path)
    return plan(parse_file(content, path), content, path, isolation, limits, packages)


def condition_of(experiment: Experiment, name: str | None = None) -> Condition:
    """The condition NAME of the file (None: its first)."""
    if name is None:
        return experiment.conditions[0]
    for condition in experiment.conditions:
        if condition.name == name:
            return condition
    raise HarnessError(f"no condition {name!r} in {experiment.path} (conditions: "
                       f"{', '.join(c.name for c in experiment.conditions)})")


# what only an experiment does with them (tournaments per condition, their seed)
EXPERIMENT_ONLY = {"replicates": "--replicates N", "seed": "--seed N"}


def population(path, isolation: str | None = None,
               limits: dict | None = None) -> tuple[Condition, dict]:
    """A population file read for one tournament (`tournament --population`): its types
    and its parameters (the file's `parameters`, and its condition's when it has one),
    read, checked and bounded by `load` as `experiment` and `train` read them. What only
    an experiment can take (several conditions, replicates, its seed) is refused in one
    line rather than dropped unsaid. With the condition, the tournament options the file
    sets, by their option names (`given_parameters`)."""
    experiment = load(path, isolation, limits)
    data = _top_level(experiment)
    for key, option in EXPERIMENT_ONLY.items():
        if key in data:
            raise HarnessError(f"{path}: {key} is an experiment's (pdharness experiment "
                               f"{path}); a tournament takes {option} on the command line")
    if len(experiment.conditions) > 1:
        raise HarnessError(f"{path}: {len(experiment.conditions)} conditions "
                           f"({', '.join(c.name for c in experiment.conditions)}); a "
                           f"tournament plays one: pdharness experiment {path} plays each")
    chosen = experiment.conditions[0]
    return chosen, given_parameters(chosen, limits)


def given_parameters(chosen: Condition, limits: dict | None = None) -> dict:
    """The tournament options the file itself sets for CHOSEN (by their option names, as
    the tournament's options hold them). A limit only when the file lowered it below
    LIMITS (the command line's); how agents run is the command line's alone."""
    most = ceiling(limits)
    return {name: value for name, value in chosen.parameters.items()
            if name != "isolation" and not (name in LIMITS and value == most[name])}


def _top_level(experiment: Experiment) -> dict:
    return parse_file(experiment.content, experiment.path)


def ceiling(limits: dict | None) -> dict:
    """Each limit as the command line gives it, else its default: the most a file may ask."""
    given = limits or {}
    return {name: given[name] if given.get(name) is not None else BY_NAME[name].default
            for name in LIMITS}


def plan(data: dict, content: bytes, path: Path, isolation: str | None,
         limits: dict | None = None, packages: tuple[str, ...] = ()) -> Experiment:
    where = str(path)
    most = ceiling(limits)
    unknown = sorted(set(data) - set(TOP_LEVEL))
    if unknown:
        raise HarnessError(f"{where}: unknown field {unknown[0]!r} (fields: "
                           f"{', '.join(TOP_LEVEL)})")
    replicates = data.get("replicates", 1)
    if not REPLICATES.holds(replicates):
        raise HarnessError(f"{where}: replicates must be a whole number from "
                           f"{REPLICATES.low} to {REPLICATES.high}")
    seed = data.get("seed")
    if seed is not None and not SEED.holds(seed):
        raise HarnessError(f"{where}: seed must be a whole number from {SEED.low} to "
                           f"{SEED.high}")
    title = data.get("title")
    given_packages = {"agent_package": tuple(packages)} if packages else {}
    base = {**most, **given_packages,
            **_overrides(data.get("parameters", {}), f"{where}: parameters", most)}
    if isolation:
        base["isolation"] = isolation
    entries = data.get("conditions", [{"name": "base"}])
    if not isinstance(entries, list) or not entries:
        raise HarnessError(f"{where}: conditions must be a non-empty list")

    models = declared(data, path.parent, where)   # the file's `llm` table, for every condition
    conditions, seen = [], set()
    for number, entry in enumerate(entries, 1):
        condition = _condition(entry, data, base, path, f"{where}: condition {number}", models,
                               most)
        if condition.name.lower() in seen:
            raise HarnessError(f"{where}: two conditions named {condition.name!r}")
        seen.add(condition.name.lower())
        conditions.append(condition)
    return Experiment(path, content, replicates, conditions, seed,
                      title if isinstance(title, str) else None, tuple(packages), most)


def _condition(entry, data, base, path, where, models, most) -> Condition:
    if not isinstance(entry, dict):
        raise HarnessError(f"{where}: expected an object with a name and parameters")
    name = entry.get("name")
    if not isinstance(name, str) or not CONDITION_NAME.fullmatch(name):
        raise HarnessError(f"{where}: name must be 1-40 letters, digits, spaces or _ . + -, "
                           f"not {str(name)[:40]!r}")
    where = f"{where} ({name})"
    given = {key: value for key, value in entry.items()
             if key not in ("name", "types", "chat")}
    options = dict(base, **_overrides(given, where, most))
    types_from = entry if "types" in entry else data
    types = population_types(types_from, path.parent, where if "types" in entry
                             else str(path), models)
    if "chat" in entry:
        types = _chatting(types, entry["chat"], where)
    return Condition(name, options, _settings(options, where), types)


def _chatting(types, chat, where) -> list:
    """`"chat": true/false` on a condition: its language models chat (or not) there."""
    if not isinstance(chat, bool):
        raise HarnessError(f"{where}: chat is true or false")
    return [replace(t, template=replace(t.template, llm=replace(t.template.llm, chat=chat)))
            if t.template.kind is Kind.LLM else t for t in types]


def default_options() -> dict:
    """Every tournament option at its command-line default (the declared parameters')."""
    return {name: BY_NAME[name].default
            for name in (*PARAMETERS, "isolation", "seed", "jobs")}


def _overrides(given, where, most: dict) -> dict:
    """{"moves-per-turn": 1, ...} -> {"moves_per_turn": 1, ...}, each value checked as the
    command line checks it (the declared parameter's type and bounds), and each limit at
    most `most` (the command line's)."""
    if not isinstance(given, dict):
        raise HarnessError(f"{where}: expected an object of parameters")
    options = {}
    for key, value in given.items():
        name = str(key).replace("-", "_")
        if name not in PARAMETERS and not (name == "isolation" and "parameters" in where):
            raise HarnessError(f"{where}: unknown parameter {str(key)[:40]!r} (parameters: "
                               f"{', '.join(p.replace('_', '-') for p in PARAMETERS)})")
        parameter = BY_NAME[name]
        try:
            options[name] = _converted(parameter, value)
        except (BadValue, TypeError, ValueError) as error:
            message = invalid(error, " / ".join(parameter.flags)) \
                if isinstance(error, BadValue) else str(error)
            raise HarnessError(f"{where}: {key}: {' '.join(message.split())[:200]}") from error
        if name == "isolation" and options[name] != "sandbox":
            # the person at the command line chooses it, never a file
            raise HarnessError(f"{where}: isolation {options[name]!r}: an isolation weaker "
                               "than the sandbox is chosen on the command line (--isolation "
                               f"{options[name]}), never by an experiment or population file")
        if name in LIMITS:
            _within(options, name, key, most[name], where)
    return options


def _within(options: dict, name: str, key, most, where: str) -> None:
    """A limit the file asks is kept if it is at most the command line's (None: not asked,
    the command line's holds); above it, the run is refused in one line."""
    asked = options[name]
    if asked is None:
        del options[name]
        return
    if asked > most:
        what, option, unit = LIMITS[name]
        raise HarnessError(f"{where}: {str(key)[:40]} {asked:g}: {what} above this run's "
                           f"({most:g}{unit}); an experiment or population file may only "
                           f"lower it: to allow it, give {option} {asked:g} on the command "
                           "line")


def _converted(parameter, value):
    if value is None:
        return None
    if parameter.nargs > 1:
        if not isinstance(value, list) or len(value) != parameter.nargs:
            raise ValueError(f"expected a list of {parameter.nargs} values")
        return tuple(parameter.type.convert(v) for v in value)
    if parameter.multiple:   # agent-package = ["numpy", "scipy>=1"], as the course file
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError('expected a list of quoted values (e.g. ["numpy"])')
        return tuple(parameter.type.convert(v) for v in value)
    if parameter.flag and not isinstance(value, bool):
        raise ValueError("expected true or false")
    if isinstance(value, (list, dict)):
        raise ValueError("expected one value")
    return parameter.type.convert(value)


def _settings(options, where):
    full = dict(default_options(), **options)
    try:
        return settings(dict(full, jobs=1))
    except HarnessError as error:
        raise HarnessError(f"{where}: {error}") from error
