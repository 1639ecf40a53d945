"""Playing an experiment: every (condition, replicate) is one complete tournament with its
own seed, derived from the experiment's seed, the condition's name and the replicate, so
it is the same whichever worker plays it, in whatever order, with any --jobs, and after a
resume. Tournaments run `jobs` at a time in forked workers (each plays its games one by
one, so the cores go to whole tournaments), and each is recorded as soon as it is done.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from harness.core import seeds


@dataclass(frozen=True)
class UnitResult:
    condition: int          # 1, 2, ... in the file's order
    replicate: int          # 1 .. replicates
    seed: int
    rounds: int
    games: int
    # (agent, type, rank, score, dropped_in, cooperated, moves, faults), best first
    placings: list
    # language models' requests and turns: llm_call / llm_turn rows from the game column on
    llm_calls: list = field(default_factory=list)
    llm_turns: list = field(default_factory=list)


def unit_seed(experiment_seed: int, condition_name: str, replicate: int) -> int:
    return seeds.derive(experiment_seed, "experiment", condition_name, replicate)


_WORK: dict = {}


def play_unit(unit: tuple[int, int]) -> UnitResult:
    from harness.engine.tournament import run_tournament
    from harness.run.round_runner import round_runner

    number, replicate = unit
    condition = _WORK["experiment"].conditions[number - 1]
    seed = unit_seed(_WORK["seed"], condition.name, replicate)
    result = run_tournament(condition.specs(), seed, replace(condition.settings, jobs=1),
                            runner_for=round_runner)
    calls, turns = [], []
    if any(game.talk for game in result.games):
        from harness.agents.llm.record_rows import call_rows, turn_rows

        for number_played, game in enumerate(result.games, 1):
            calls += call_rows(number_played, game)
            turns += turn_rows(number_played, game)
    return UnitResult(number, replicate, seed, len(result.rounds), len(result.games),
                      placings(result), calls, turns)


def placings(result) -> list:
    from harness.agents.population import type_of
    from harness.engine.results import fault_counts

    cooperated: dict[str, int] = {}
    moves: dict[str, int] = {}
    for game in result.games:
        for name, intended in ((game.a, game.intended_a), (game.b, game.intended_b)):
            text = "".join(intended)
            cooperated[name] = cooperated.get(name, 0) + text.count("C")
            moves[name] = moves.get(name, 0) + len(text)
    return [(s.agent, type_of(s.agent), s.rank, s.score, s.dropped_in,
             cooperated.get(s.agent, 0), moves.get(s.agent, 0),
             sum(fault_counts(result.games, s.agent).values()))
            for s in result.standings]


def play(experiment, seed: int, record=None, jobs: int | None = None, on_done=None,
         cluster: str | None = None) -> list:
    """Every tournament of the experiment not in `record` yet, here or on the Dask
    scheduler `cluster`; returns all of them (those recorded before included), in
    (condition, replicate) order."""
    import os

    done = record.done() if record else set()
    units = [(number, replicate)
             for number in range(1, len(experiment.conditions) + 1)
             for replicate in range(1, experiment.replicates + 1)
             if (number, replicate) not in done]
    results = record.units() if record else []
    total = len(units) + len(results)
    _WORK.update(experiment=experiment, seed=seed)

    def finished(unit: UnitResult) -> None:
        results.append(unit)
        if record:
            record.add(unit)
        if on_done:
            on_done(len(results), total)

    workers = max(1, min(jobs or os.cpu_count() or 1, len(units) or 1))
    if cluster:   # one task per tournament
        from ..cluster.spread import play_units

        play_units(experiment, seed, units, cluster, finished)
    elif workers == 1:
        for unit in units:
            finished(play_unit(unit))
    else:
        from harness.engine.forked import Workers

        # forked: the workers inherit the experiment as read here
        with Workers(workers) as pool:
            for played in pool.map(play_unit, units, ordered=False):
                finished(played)
    return sorted(results, key=lambda unit: (unit.condition, unit.replicate))
