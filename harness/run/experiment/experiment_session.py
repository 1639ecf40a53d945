"""An experiment as the command line runs it: recorded with --db (one transaction per
finished tournament), with a progress bar on a terminal; and its resume."""
from __future__ import annotations

from harness.agents.agent_types import definition
from harness.core.counts import counted
from harness.core.errors import HarnessError
from harness.engine.parameters import MIB
from harness.isolation.handles.isolation_settings import Isolation
from harness.run import progress
from harness.run.tournament_session import check_bundle_limit, check_isolation, resume_command

from . import plan
from .run import play


class ExperimentInterrupted(Exception):
    def __init__(self, path, kept: int, experiment=None):
        super().__init__(f"interrupted; {kept} finished tournament{'s' * (kept != 1)} kept "
                         f"in {path}\npdharness: to finish the experiment: "
                         f"{resume_command(path, _limits_of(experiment))}")


def _limits_of(experiment) -> Isolation | None:
    """The limits the experiment's command line gave, which its resume is given again."""
    if experiment is None or not experiment.limits:
        return None
    return Isolation(timeout=experiment.limits["timeout"],
                     memory_limit=experiment.limits["memory_limit"] * MIB)


def run(experiment, seed: int, *, db=None, jobs=None, quiet=False, isolation=None,
        command=None, cluster=None) -> list:
    from .record import ExperimentRecord  # heavy (sqlite3): loaded only where used

    record = (ExperimentRecord.create(db, experiment, seed, isolation, command)
              if db else None)
    try:
        return _play(experiment, seed, record, jobs, quiet, cluster)
    finally:
        if record:
            record.close()


def resume(path, *, jobs=None, quiet=False, isolation="sandbox", allow_weaker=False,
           cluster=None, limits=None):
    """(experiment, seed, every tournament, note) for the experiment recorded in `path`.
    Agents run with the `isolation` and `limits` asked now ({"timeout": s, "memory_limit":
    MiB}, resume's options), never the record's (see harness.run.tournament_session.resume); the
    file's conditions may only lower those limits, as when it was started, and limits other
    than the recorded ones are refused (they change results)."""
    from .record import ExperimentRecord  # heavy (sqlite3): loaded only where used

    record = ExperimentRecord.reopen(path)
    try:
        header = record.header()
        packages = record.agent_packages(header)   # what agents may import: the record's
        check_bundle_limit(path, record.max_bundle_mib(header), "experiment")
        as_recorded = plan.from_record(header["content"], header["file"], header["isolation"],
                                       limits, packages)
        for condition in as_recorded.conditions:
            check_isolation(path, condition.settings.isolation.mode, isolation, allow_weaker)
        experiment = plan.from_record(header["content"], header["file"], isolation, limits,
                                      packages)
        _check_limits(path, experiment, record.limits())
        recorded = record.definitions()
        for number, condition in enumerate(experiment.conditions, 1):
            for agent_type in condition.types:
                if recorded.get((number, agent_type.id)) != definition(agent_type.template):
                    raise HarnessError(
                        f"{path}: agent type {agent_type.id} ({agent_type.agent}) changed "
                        "since the experiment started; the resumed experiment would not be "
                        "the same")
        seed = int(header["seed"])
        if header["finished_at"]:
            return experiment, seed, record.units(), f"{path}: the experiment was already complete"
        before = len(record.done())
        units = _play(experiment, seed, record, jobs, quiet, cluster)
        return experiment, seed, units, f"{path}: resumed after {counted(before, 'tournament')}"
    finally:
        record.close()


def _check_limits(path, experiment, recorded: dict) -> None:
    """HarnessError when a condition would play under other limits than it was recorded
    with (a value the record lacks, or not a number, is not compared)."""
    for number, condition in enumerate(experiment.conditions, 1):
        then = recorded.get(number, (None, None))
        now = (condition.settings.isolation.timeout,
               condition.settings.isolation.memory_limit // MIB)
        for option, was, asked in zip(("--timeout", "--memory-limit"), then, now,
                                      strict=True):
            if isinstance(was, bool) or not isinstance(was, (int, float)) or was == asked:
                continue
            raise HarnessError(
                f"{path}: condition {condition.name} was recorded with {option} {was:g} and "
                f"this resume gives it {asked:g}; give {option} {was:g} to finish the same "
                "experiment")


def _play(experiment, seed, record, jobs, quiet, cluster=None) -> list:
    bar = progress.CountProgress("tournaments") if progress.wanted(quiet) else None
    try:
        units = play(experiment, seed, record, jobs, bar, cluster)
    except KeyboardInterrupt:
        if record is None:
            raise
        raise ExperimentInterrupted(record.path, len(record.done()), experiment) from None
    finally:
        if bar:
            bar.close()
    if record:
        record.complete()
    return units
