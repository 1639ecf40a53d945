"""`--replicates N`: the same tournament N more times with seeds derived from the run's seed,
to show how much of a ranking is luck (flips, game lengths, agents' own random draws).

Replicate k uses `harness.core.seeds.replicate_seed(seed, k)`, k = 1..N; each is a complete,
deterministic tournament, so the summary is the same with any --jobs.
"""
from __future__ import annotations

import os
from dataclasses import replace

from harness.core.seeds import replicate_seed
from harness.engine.forked import Workers
from harness.engine.tournament import run_tournament
from harness.store.replicate_summary import Placing, ReplicateRun, Summary, summarize

from .cluster.spread import play_replicates

# -- running them ----------------------------------------------------------------------------
_WORK: dict = {}


def _play(number: int) -> ReplicateRun:
    specs, seed, settings = _WORK["specs"], _WORK["seed"], _WORK["settings"]
    replicate = replicate_seed(seed, number)
    result = run_tournament(specs, replicate, settings)
    return ReplicateRun(number, replicate,
                        [Placing(s.agent, s.rank, s.score, s.dropped_in)
                         for s in result.standings])


def run_replicates(specs, seed: int, settings, count: int, jobs: int | None = None,
                   on_done=None) -> Summary:
    """`count` tournaments, `jobs` at a time (each one plays its games one by one, so the
    machine's cores go to whole tournaments), or on `settings.cluster`; on_done(done,
    count) after each."""
    if settings.cluster:   # one task per replicate
        return summarize(play_replicates(specs, seed, settings, count, on_done))
    workers = max(1, min(jobs or os.cpu_count() or 1, count))
    _WORK.update(specs=specs, seed=seed, settings=replace(settings, jobs=1))
    numbers = range(1, count + 1)
    runs = []
    if workers == 1:
        for number in numbers:
            runs.append(_play(number))
            if on_done:
                on_done(len(runs), count)
    else:
        # forked: the workers inherit the agents as resolved here
        with Workers(workers) as pool:
            for run in pool.map(_play, numbers, ordered=False):
                runs.append(run)
                if on_done:
                    on_done(len(runs), count)
    runs.sort(key=lambda run: run.number)
    return summarize(runs)
