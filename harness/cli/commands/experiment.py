"""`pdharness experiment FILE`: conditions x replicates of the tournament, compared."""
from __future__ import annotations

import json
import sys

import click

from harness.core.safe_text import (
    block,  # our two lines, quoting the record's path
    echo,
    line,
)
from harness.core.seeds import fresh_seed

from .options import (
    PLAIN_FORMATS,
    bundle_limit_option,
    cluster_option,
    file_limit_options,
    file_packages_option,
    format_option,
    long_run_option,
    unless_given,
)
from .output_options import quiet_option

# imports inside functions here are deferred (`pdharness` starts light)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--db", type=click.Path(dir_okay=False), default=None, metavar="FILE.sqlite",
              help="Record the experiment in this new SQLite file, tournament by tournament "
                   "(pdharness resume finishes it).")
@click.option("--report", type=click.Path(dir_okay=False), default=None,
              metavar="FILE.html", help="Write a report comparing the conditions.")
@format_option(help="How to print the comparison.")
@unless_given("seed", "Experiment seed (else the file's \"seed\", else random; always "
              "printed).")
@unless_given("jobs", "Tournaments played at once (default: every core; same results).")
@unless_given("isolation", "How agents run (default: sandbox).")
@file_limit_options
@file_packages_option
@bundle_limit_option
@cluster_option
@long_run_option
@quiet_option
def command(file, db, report, format, seed, jobs, isolation, timeout, memory_limit,
            agent_package, cluster, quiet):
    """Run the experiment in FILE (JSON or TOML): its agent types, in every condition, as
    many times as its replicates say, and compare the conditions."""
    from harness.present.outputs import command_line
    from harness.run.experiment import experiment_session as session, plan

    experiment = plan.load(file, isolation, {"timeout": timeout, "memory_limit": memory_limit},
                           agent_package)
    _check_report_path(report)
    from harness.agents.agent_types import retrain_notes

    notes = {note: None for c in experiment.conditions for note in retrain_notes(c.specs())}
    for note in notes:   # once each, in order
        click.echo(f"pdharness: note: {line(note)}", err=True)  # quotes a model's path
    chosen = seed if seed is not None else (
        experiment.seed if experiment.seed is not None else fresh_seed())
    try:
        units = session.run(experiment, chosen, db=db, jobs=jobs, quiet=quiet,
                            isolation=isolation, command=command_line(), cluster=cluster)
    except session.ExperimentInterrupted as stopped:
        _exit_interrupted(stopped)
    deliver(experiment, chosen, units, format, report)


def deliver(experiment, seed, units, format, report) -> None:
    from harness.run.experiment.summary import as_json, as_table, summarize

    _say_load_errors(experiment, units)
    summaries = summarize(experiment, units)
    if format == "json":
        echo(json.dumps(as_json(experiment, seed, summaries), indent=1))
    else:
        echo(as_table(experiment, seed, summaries))
    if report:
        from harness.present.experiment_report import write_report

        write_report(report, experiment, seed, summaries)


def _say_load_errors(experiment, units) -> None:
    """Each agent type that did not load in the tournaments played now, once, with why:
    its copies rank last (or play the default answer, with keep-broken), and the table
    alone would not say so."""
    said: dict[str, tuple[str, str]] = {}   # type -> (its agent, why: the first said)
    for unit in units:
        agents = {t.id: t.agent for t in experiment.conditions[unit.condition - 1].types}
        for type_id, why in unit.load_errors.items():
            said.setdefault(type_id, (agents.get(type_id, type_id), why))
    for type_id, (agent, why) in said.items():
        click.echo(f"pdharness: note: agent type {line(type_id)} ({line(agent)}) did not "
                   f"load: {line(why)}", err=True)


def resume(record, jobs, format, report, quiet, isolation="sandbox",
           allow_weaker=False, cluster=None, limits=None) -> None:
    """`pdharness resume X.sqlite` for an experiment record."""
    from harness.run.experiment import experiment_session as session

    _check_report_path(report)
    try:
        experiment, seed, units, note = session.resume(
            record, jobs=jobs, quiet=quiet, isolation=isolation, allow_weaker=allow_weaker,
            cluster=cluster, limits=limits)
    except session.ExperimentInterrupted as stopped:
        _exit_interrupted(stopped)
    if note:
        click.echo(f"pdharness: {line(note)}", err=True)
    deliver(experiment, seed, units, format if format in PLAIN_FORMATS else PLAIN_FORMATS[0], report)


def _check_report_path(report) -> None:
    from harness.core.output_paths import make_parent

    if report:
        make_parent(report, str(report))


def _exit_interrupted(stopped) -> None:
    from harness.core.interrupts import exit_status

    click.echo(f"pdharness: {block(stopped)}", err=True)
    sys.exit(exit_status())
