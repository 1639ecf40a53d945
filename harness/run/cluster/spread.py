"""Replicates and experiment cells on a cluster: each whole tournament is one task (it is
long enough to be worth shipping, and independent of every other)."""
from __future__ import annotations

from harness.agents.population import type_of
from harness.agents.specs import ISOLATION_MODES
from harness.core.errors import HarnessError
from harness.core.seeds import replicate_seed
from harness.store.replicate_summary import Placing, ReplicateRun

from ..cells import UnitResult, load_errors_by_type, unit_seed
from . import wire
from .connection import open_cluster, worker_name
from .shipment import pack
from .worker import play_tournament


def play_replicates(specs, seed: int, settings, count: int, on_done=None) -> list:
    """The ReplicateRuns 1..count of harness.run.replicates, played on the cluster."""
    names = [spec.name for spec in specs]
    shipment = pack(specs)
    runs = []
    with open_cluster(settings.cluster, specs, settings.isolation.mode) as cluster:
        seeds = [replicate_seed(seed, number) for number in range(1, count + 1)]
        tasks = [(play_tournament, (shipment, each, settings, cluster.needed), 1)
                 for each in seeds]
        for index, answer in cluster.run(tasks):
            rows = _standings(answer, names, 0)
            runs.append(ReplicateRun(index + 1, seeds[index],
                                     [Placing(*row) for row in rows]))
            if on_done:
                on_done(len(runs), count)
    runs.sort(key=lambda run: run.number)
    return runs


def play_units(experiment, seed: int, units, address: str, finished) -> None:
    """The experiment's (condition, replicate) cells `units`, one task each; `finished`
    gets each UnitResult as it comes back."""
    if not units:
        return
    conditions = experiment.conditions
    every_spec = [spec for condition in conditions for spec in condition.specs()]
    modes = {condition.settings.isolation.mode for condition in conditions}
    shipments = {number: pack(conditions[number - 1].specs())
                 for number in {number for number, _ in units}}
    with open_cluster(address, every_spec, _strongest(modes)) as cluster:
        seeds = [unit_seed(seed, conditions[number - 1].name, replicate)
                 for number, replicate in units]
        tasks = [(play_tournament, (shipments[number], each,
                                    conditions[number - 1].settings, cluster.needed, True), 1)
                 for (number, _replicate), each in zip(units, seeds, strict=True)]
        for index, answer in cluster.run(tasks):
            number, replicate = units[index]
            names = [spec.name for spec in conditions[number - 1].specs()]
            rows = _standings(answer, names, 3)
            placings = [(agent, type_of(agent), *rest) for agent, *rest in rows]
            rounds, games = _counts(answer)
            finished(UnitResult(number, replicate, seeds[index], rounds, games, placings,
                                load_errors=load_errors_by_type(_not_loaded(answer, names))))


def _strongest(modes) -> str:
    return min(modes, key=ISOLATION_MODES.index)


def _standings(answer, names, extra: int) -> list:
    try:
        return wire.standings_in(answer.get("standings"), names, extra)
    except wire.BadAnswer as bad:
        raise _bad(answer, bad) from None


def _not_loaded(answer, names) -> dict[str, str]:
    try:
        return wire.texts_by_agent(answer.get("not_loaded"), names, "load errors")
    except wire.BadAnswer as bad:
        raise _bad(answer, bad) from None


def _counts(answer) -> tuple[int, int]:
    try:
        return (wire.whole(answer.get("rounds"), "a count of rounds", 0),
                wire.whole(answer.get("games"), "a count of games", 0))
    except wire.BadAnswer as bad:
        raise _bad(answer, bad) from None


def _bad(answer, bad) -> HarnessError:
    return HarnessError(f"worker {worker_name(answer)}: an answer that is {bad}")
