"""The Python API: `harness.monitor(flip_params, game_length, agents, **options)`.

Mirrors the original `(monitor flipParams gameLength agents)` and returns its answer, a list
of (name, score) pairs best first. The list also carries `.seed` and the full `.result`.
"""
from __future__ import annotations

from os import PathLike
from pathlib import Path

from .agents import AgentSpec, bundled_agents_dir, callable_spec, check_unique, resolve_one
from .errors import HarnessError


class Standings(list):
    """[(name, score), ...] best first, with the run's seed and full result attached."""

    seed: int
    result: object


def agent_specs(agents, search) -> list[AgentSpec]:
    specs = []
    for agent in agents:
        if isinstance(agent, AgentSpec):
            specs.append(agent)
        elif isinstance(agent, (str, PathLike)):
            specs.extend(resolve_one(str(agent), search))
        elif callable(agent):
            specs.append(callable_spec(agent))
        else:
            raise HarnessError(f"not an agent: {agent!r} (give a name, a path or a function)")
    check_unique(specs)
    return specs


def _pair(value, what):
    try:
        first, second = value
    except (TypeError, ValueError):
        raise HarnessError(f"{what} must be a pair of numbers, not {value!r}") from None
    return first, second


def monitor(flip_params, game_length, agents, *, seed: int | None = None,
            moves_per_turn: int = 3, decay: str = "percent-per-turn",
            payoffs=(5, 3, 1, 0), timeout: float = 1.0, on_fault: str = "cooperate",
            isolation: str = "sandbox", memory_limit_mib: int = 1024,
            jobs: int | None = None, max_rounds: int | None = None,
            max_faults: int | None = None, disqualify_broken: bool = False,
            agents_dir=None, horizon: str = "uniform",
            stop_prob: float | None = None, cluster: str | None = None) -> Standings:
    """Run the Levinson tournament. `agents` holds built-in names, agent names found in
    `agents_dir` (default: the bundled student_agents), paths, or Python functions (which
    always run in this process). Agent files run in the sandbox, as on the command line
    (`isolation="process"` or `"none"` to choose otherwise); where the sandbox is not
    available, one warning on stderr says so and they run as plain processes. `cluster`:
    the address of a Dask scheduler whose workers play the games (same result)."""
    from .handles.opening import Isolation
    from .lang import LANGUAGES
    from .rules import FlipParams, GameLength, GameParams, Payoffs
    from .seeds import fresh_seed
    from .tournament import Settings, run_tournament

    for language in LANGUAGES.values():  # from Hy? quoted forms to plain values
        flip_params, game_length, agents = map(language.plain_data,
                                               (flip_params, game_length, agents))
    flip_start, flip_decay = _pair(flip_params, "flip_params")
    low, high = _pair(game_length, "game_length")
    search = [Path(agents_dir)] if agents_dir is not None else [bundled_agents_dir()]
    specs = agent_specs(agents, search)
    settings = Settings(
        game=GameParams(FlipParams(float(flip_start), float(flip_decay), decay),
                        moves_per_turn, Payoffs(*payoffs),
                        default_answer="C" if on_fault == "cooperate" else "D"),
        length=GameLength(int(low), int(high), horizon, stop_prob),
        isolation=Isolation(isolation, timeout, memory_limit_mib * 1024 * 1024),
        jobs=jobs, max_rounds=max_rounds, max_faults=max_faults,
        disqualify_broken=disqualify_broken, cluster=cluster)
    seed = fresh_seed() if seed is None else seed
    result = run_tournament(specs, seed, settings)
    standings = Standings(result.pairs())
    for language in LANGUAGES.values():  # from Hy? it prints as a Lisp list
        language.present(Standings)
    standings.seed, standings.result = seed, result
    return standings
