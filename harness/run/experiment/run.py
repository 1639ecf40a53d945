"""Playing an experiment: every (condition, replicate) is one complete tournament with its
own seed, derived from the experiment's seed, the condition's name and the replicate, so
it is the same whichever worker plays it, in whatever order, with any --jobs, and after a
resume. Tournaments run `jobs` at a time in forked workers (each plays its games one by
one, so the cores go to whole tournaments), and each is recorded as soon as it is done.
"""
from __future__ import annotations

import os
from dataclasses import replace

from harness.agents.llm.record_rows import call_rows, turn_rows
from harness.engine.forked import Workers
from harness.engine.tournament import run_tournament
from harness.run.round_runner import round_runner

from ..cells import UnitResult, load_errors_by_type, placings, unit_seed
from ..cluster.spread import play_units

_WORK: dict = {}


def play_unit(unit: tuple[int, int]) -> UnitResult:
    number, replicate = unit
    condition = _WORK["experiment"].conditions[number - 1]
    seed = unit_seed(_WORK["seed"], condition.name, replicate)
    result = run_tournament(condition.specs(), seed, replace(condition.settings, jobs=1),
                            runner_for=round_runner)
    calls, turns = [], []
    if any(game.talk for game in result.games):
        for number_played, game in enumerate(result.games, 1):
            calls += call_rows(number_played, game)
            turns += turn_rows(number_played, game)
    return UnitResult(number, replicate, seed, len(result.rounds), len(result.games),
                      placings(result), calls, turns, load_errors_by_type(result.load_errors))


def play(experiment, seed: int, record=None, jobs: int | None = None, on_done=None,
         cluster: str | None = None) -> list:
    """Every tournament of the experiment not in `record` yet, here or on the Dask
    scheduler `cluster`; returns all of them (those recorded before included), in
    (condition, replicate) order."""
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
        play_units(experiment, seed, units, cluster, finished)
    elif workers == 1:
        for unit in units:
            finished(play_unit(unit))
    else:
        # forked: the workers inherit the experiment as read here
        with Workers(workers) as pool:
            for played in pool.map(play_unit, units, ordered=False):
                finished(played)
    return sorted(results, key=lambda unit: (unit.condition, unit.replicate))
