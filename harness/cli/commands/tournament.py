"""`pdharness tournament [AGENT]...`"""
from __future__ import annotations

import click

from harness.agents.specs import bundled_agents_dir, check_unique, resolve
from harness.core.safe_text import line

from ..completion import complete_agents
from .options import bounded, game_options, replicates_option, seed_of, settings, tournament_options
from .output_options import (
    given_here,
    output_options,
    outputs_of,
    quiet_option,
    result_format_option,
)

# imports inside functions here are deferred (`pdharness` starts light)


def warn_renamed(specs) -> None:
    """One warning on stderr per agent file an LMS renamed, played as the agent it defines
    (harness/agents/uploaded_names.py): every command that plays agent files says it."""
    from harness.agents.uploaded_names import renamed_warnings

    for warning in renamed_warnings(specs):
        click.echo(f"pdharness: warning: {line(warning)}", err=True)


def say_found(notes) -> None:
    """Which agent file each bare name played (harness/agents/wording.py, found_by_name)."""
    for note in notes:
        click.echo(f"pdharness: note: {line(note)}", err=True)


def run_and_print(specs, options) -> None:
    from harness.present import outputs
    from harness.run import tournament_session as session

    from ..course import as_options

    warn_renamed(specs)
    chosen = settings(options)
    seed = seed_of(options, graded=True)
    asked = outputs_of(options)
    roster = outputs.check_outputs(asked)
    command_line = " ".join(filter(None, [outputs.command_line(), as_options()]))
    try:
        result = session.run(specs, seed, chosen, db=options.get("db"),
                             quiet=options.get("quiet", False),
                             replicates=options.get("replicates") or 0, command=command_line,
                             outputs=outputs.asked_for(asked))
    except session.RecordInterrupted as stopped:
        outputs.exit_interrupted(stopped)
    if options.get("ecology"):
        from harness.run.ecology import ecology_of

        result.ecology = ecology_of(specs, result, chosen, options["ecology"])
    outputs.deliver(result, asked, roster, command=command_line)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("agents", nargs=-1, shell_complete=complete_agents)
@game_options
@tournament_options
@result_format_option
@click.option("--db", type=click.Path(dir_okay=False), default=None, metavar="FILE.sqlite",
              help="Record the run in this new SQLite file, round by round (see show, "
                   "resume).")
@replicates_option("Also run N tournaments with seeds derived from --seed: how much is luck.")
@click.option("--population", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Agent types and how many copies of each (JSON or TOML; copies are "
                   "named type#1, type#2, ...).")
@click.option("--ecology", type=bounded(1, 100_000), default=None, metavar="GENERATIONS",
              help="Add Axelrod's ecological tournament: population shares over GENERATIONS "
                   "generations from this run's scores (each agent also plays a copy of "
                   "itself once a round).")
@output_options
@quiet_option
def command(agents, population, **options):
    """Run the Levinson tournament among AGENTS: agent files, folders of them or built-in
    names (none given: the bundled student_agents/, unless --population gives them)."""
    specs = []
    if population:
        specs = _population(population, options)
    if agents or not population:
        found: list[str] = []
        specs += resolve(agents or [str(bundled_agents_dir())], found=found)
        say_found(found)
    check_unique(specs)
    _note_retraining(specs)
    run_and_print(specs, options)


def _population(path, options: dict) -> list:
    """The population's copies; the file's parameters (`length`, `flip`, ...) go into
    OPTIONS as `train` and `experiment` apply them (harness/run/experiment/plan.py), said on
    stderr; an option given on this command line wins over the file."""
    from harness.run.experiment import plan

    from ..course import toml_text

    chosen, given = plan.population(path, None, {"timeout": options.get("timeout"),
                                                 "memory_limit": options.get("memory_limit")})
    beaten = sorted(name for name in given
                    if given_here(name) and name not in plan.LIMITS)
    for name, value in given.items():
        if name not in beaten:
            options[name] = value
    if given:   # said as the course file's note says its values (course.note)
        taken = ", ".join(f"{name.replace('_', '-')} = {toml_text(value)}"
                          for name, value in given.items() if name not in beaten)
        overrode = ", ".join(name.replace("_", "-") for name in beaten)
        click.echo(line(f"pdharness: population {path}: {taken or 'nothing'}"
                        + (f"; the command line overrode {overrode}" if overrode else "")),
                   err=True)
    return chosen.specs()


def _note_retraining(specs) -> None:
    """A Q-table agent trained against other types than the ones it meets: say so."""
    from harness.agents.agent_types import retrain_notes

    for note in retrain_notes(specs):
        click.echo(f"pdharness: note: {line(note)}", err=True)
