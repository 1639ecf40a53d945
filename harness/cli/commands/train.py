"""`pdharness train FILE --out MODEL.json`: a Q-table agent trained on a file's types."""
from __future__ import annotations

from dataclasses import fields
from typing import Any

import click

from harness.agents.memory_agents import MAX_MEMORY
from harness.core.counts import counted
from harness.core.errors import HarnessError
from harness.core.safe_text import line

from .options import bundle_limit_option, file_limit_options, file_packages_option, unless_given
from .output_options import quiet_option

# imports inside functions here are deferred (`pdharness` starts light)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), required=True, metavar="MODEL.json",
              help="Where to write the model (plain JSON); play it as qtable:MODEL.json.")
@click.option("--condition", default=None, metavar="NAME",
              help="Train under this condition's parameters and types (default: the first).")
@click.option("--memory", type=click.IntRange(1, MAX_MEMORY), default=None,
              help="Move pairs it remembers (default: the file's training.memory, else 1).")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Training games (default: the file's training.games, else 3000).")
@unless_given("seed", "Training seed (default: the file's training.seed, else 0).")
@unless_given("isolation", "How the opponents run (default: sandbox).")
@file_limit_options
@file_packages_option
@bundle_limit_option
@quiet_option
def command(file, out, condition, memory, games, seed, isolation, timeout, memory_limit,
            agent_package, quiet):
    """Train a Q-learning agent against one copy of each agent type in FILE (an experiment
    or population file), under its parameters (flips, moves per turn, horizon), and write it
    to MODEL.json: a Q-table and a model of the replies per type, and the fingerprint of
    those types. Playing, it recognizes which type it faces and answers it."""

    from harness.agents.qtable import save_model
    from harness.core.output_paths import make_parent
    from harness.run import progress
    from harness.run.experiment import plan
    from harness.run.qlearning import train

    experiment = plan.load(file, isolation, {"timeout": timeout, "memory_limit": memory_limit},
                           agent_package)
    chosen = plan.condition_of(experiment, condition)
    training = _training(experiment, file, memory=memory, games=games, seed=seed)
    make_parent(out, f"--out {out}")
    bar = progress.CountProgress("games") if progress.wanted(quiet) else None
    try:
        model = train(chosen.types, chosen.settings, training, bar)
    finally:
        if bar:
            bar.close()
    save_model(model, out)

    click.echo(f"trained a memory-{model.memory} Q-table per type in {counted(training.games, 'game')} "
               f"against {line(', '.join(model.types))} ({line(chosen.name)}); wrote "
               f"{line(str(out))}")
    for t, name in enumerate(model.types):
        greedy = model.greedy(t)
        click.echo(f"  against {line(name)} it defects in {greedy.count('D')} of its "
                   f"{len(greedy)} states")
    click.echo(f"playing, it tells these types apart from their replies; play it as "
               f"qtable:{line(str(out))}")


def _training(experiment, file, **given):
    """The file's "training" table, overridden by the command line."""
    from harness.agents.population import read_file
    from harness.run.qlearning import Training

    table = read_file(file).get("training", {})
    names = {f.name: f.type for f in fields(Training)}
    if not isinstance(table, dict) or set(table) - set(names):
        raise HarnessError(f"{file}: training holds only {', '.join(names)}")
    values: dict[str, Any] = {}   # int or float, as Training's fields want
    for name, value in table.items():
        wanted = float if name in ("alpha", "gamma", "epsilon") else int
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (wanted is int and not isinstance(value, int)):
            raise HarnessError(f"{file}: training.{name} must be a number")
        values[name] = wanted(value)
    values.update({name: value for name, value in given.items() if value is not None})
    training = Training(**values)
    training.check()
    return training
