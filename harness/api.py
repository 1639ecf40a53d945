"""The Python API: `harness.monitor(flip_params, game_length, agents, **options)`.

Mirrors the original `(monitor flipParams gameLength agents)` and returns its answer, a list
of (name, score) pairs best first. The list also carries `.seed` and the full `.result`.
"""
from __future__ import annotations

import inspect
import sys
from os import PathLike
from pathlib import Path

from .agents.lang import LANGUAGES
from .agents.specs import AgentSpec, bundled_agents_dir, callable_spec, check_unique, resolve_one
from .agents.uploaded_names import renamed_warnings
from .agents.wording import found_by_name
from .core.errors import HarnessError
from .core.safe_text import line
from .core.seeds import fresh_seed
from .engine import parameters
from .engine.parameters import TABLE
from .engine.tournament import run_tournament
from .run.round_runner import round_runner


class Standings(list):
    """[(name, score), ...] best first, with the run's seed and full result attached."""

    seed: int
    result: object

    @property
    def sources(self) -> dict[str, str]:
        """{agent: the file it played from} for the agents that are files: a bare name
        plays the current folder's file first, and this says which one played."""
        return {e.spec.name: e.spec.source for e in self.result.entrants  # type: ignore
                if e.spec.is_file}


def agent_specs(agents, search, found: list[str] | None = None) -> list[AgentSpec]:
    """The agents given to monitor(); `found` collects a note per bare name that played a
    file (which one: the current folder's first, then `search`'s)."""
    specs = []
    for agent in agents:
        if isinstance(agent, AgentSpec):
            specs.append(agent)
        elif isinstance(agent, (str, PathLike)):
            these = resolve_one(str(agent), search)
            if found is not None:
                found += [note for spec in these if (note := found_by_name(str(agent), spec))]
            specs.extend(these)
        elif callable(agent):
            specs.append(callable_spec(agent))
        else:
            raise HarnessError(f"not an agent: {agent!r} (give a name, a path or a function)")
    check_unique(specs)
    return specs


def _say(lines, kind: str) -> None:
    """On stderr, as the command line says them: which file a bare name played, and the
    files an LMS renamed that play as the agent they define."""
    for text in lines:
        print(f"pdharness: {kind}: {line(text)}", file=sys.stderr)


def _pair(value, what):
    try:
        first, second = value
    except (TypeError, ValueError):
        raise HarnessError(f"{what} must be a pair of numbers, not {value!r}") from None
    return first, second


def monitor(flip_params, game_length, agents, *, agents_dir=None, **options) -> Standings:
    """Run the Levinson tournament. `agents` holds built-in names, agent names (the agent
    file of that name in the current folder first, else in `agents_dir`, default the
    bundled student_agents; a note on stderr says which file played), paths, or Python
    functions (which always run in this process). Agent files run in the sandbox, as on the command line
    (`isolation="process"` or `"none"` to choose otherwise); where the sandbox is not
    available, one warning on stderr says so and they run as plain processes. `cluster`:
    the address of a Dask scheduler whose workers play the games (same result).

    The keywords are the command line's options (harness/engine/parameters.py declares them
    once, with their defaults and bounds, checked here as there): seed, moves_per_turn,
    decay, payoffs, timeout, on_fault, isolation, memory_limit_mib, jobs, max_rounds,
    max_faults, keep_broken, horizon, stop_prob, cluster (and disqualify_broken, the
    default, taken for older scripts)."""
    for language in LANGUAGES.values():  # from Hy? quoted forms to plain values
        flip_params, game_length, agents = map(language.plain_data,
                                               (flip_params, game_length, agents))
    values = parameters.from_api(options)
    values["flip"] = parameters.checked(parameters.BY_NAME["flip"],
                                        _pair(flip_params, "flip_params"), "flip_params")
    values["length"] = parameters.checked(parameters.BY_NAME["length"],
                                          _pair(game_length, "game_length"), "game_length")
    search = [Path(agents_dir)] if agents_dir is not None else [bundled_agents_dir()]
    found: list[str] = []
    specs = agent_specs(agents, search, found)
    _say(found, "note")
    _say(renamed_warnings(specs), "warning")
    settings = parameters.settings(values)
    seed = values.get("seed")
    seed = fresh_seed() if seed is None else seed
    result = run_tournament(specs, seed, settings, runner_for=round_runner)
    standings = Standings(result.pairs())
    for language in LANGUAGES.values():  # from Hy? it prints as a Lisp list
        language.present(Standings)
    standings.seed, standings.result = seed, result
    return standings


def _signature():
    """monitor's signature as help() shows it: every keyword with its declared default."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    plain = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature(
        [inspect.Parameter(name, plain) for name in ("flip_params", "game_length", "agents")]
        + [inspect.Parameter("agents_dir", keyword, default=None)]
        + [inspect.Parameter(p.keyword, keyword, default=p.default) for p in TABLE
           if p.keyword], return_annotation=Standings)


monitor.__signature__ = _signature()  # type: ignore[attr-defined]
