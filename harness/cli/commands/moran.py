"""`pdharness moran AGENT... --size N`: a seeded Moran process (harness/run/moran.py)."""
from __future__ import annotations

import json

import click

from harness.agents.specs import resolve
from harness.core.errors import HarnessError
from harness.core.safe_text import echo, line

from ..completion import complete_agents
from .options import bounded, format_option, game_options, option, seed_of, settings


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("agents", nargs=-1, required=True, shell_complete=complete_agents)
@click.option("--size", type=bounded(2, 200), required=True, metavar="N",
              help="Individuals in the population (the types shared out evenly).")
@click.option("--mutation", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              metavar="P", help="The chance a newborn is of another type, uniformly.")
@click.option("--max-generations", type=bounded(1, 100_000), default=1000,
              show_default=True, help="Stop here if no type has fixed (with --mutation "
              "the process never fixes: this is its length).")
@option("length", help="Each generation's game length is drawn from LMIN..LMAX.")
@option("jobs")
@game_options
@format_option()
def command(agents, size, mutation, max_generations, format, **options):
    """A Moran process among the agent types AGENTS (files, built-ins, axelrod:NAME, ...):
    each generation every pair of the N individuals plays one game, one individual
    reproduces in proportion to its points per move and a random other dies. Prints the
    record of each generation and the type that fixed, if one did. The same --seed gives
    the same process."""
    from harness.run.moran import run_moran  # `pdharness` starts light

    specs = resolve(agents)
    if len(specs) < 2:
        raise HarnessError("moran needs at least two agent types")
    if size < len(specs):
        raise HarnessError(f"--size {size} is smaller than the {len(specs)} types given")
    options.update(jobs=options.get("jobs"), max_rounds=None, max_faults=None,
                   keep_broken=True, disqualify_broken=False, cluster=None,
                   horizon="uniform", stop_prob=None)
    seed = seed_of(options)
    chosen = settings(options)

    def say(entry) -> None:
        if format == "table":
            counts = "  ".join(f"{line(kind)} {count}"
                               for kind, count in entry["population"].items())
            echo(f"{entry['generation']:>5}  {counts}")

    if format == "table":
        echo(f"Moran process, seed {seed}, size {size}, mutation {mutation:g}")
    result = run_moran(specs, seed, size, mutation, max_generations, chosen, say)
    if format == "json":
        echo(json.dumps(result.as_dict(), indent=2))
        return
    echo(f"fixation: {line(result.fixation)} after {result.generations} generations"
         if result.fixation else f"no fixation after {result.generations} generations")

