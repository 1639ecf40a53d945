"""`pdharness list-strategies`: the Axelrod library's strategies, playable as
`axelrod:NAME`, with Axelrod's classifier. Read from the catalogue pdharness keeps
(harness/agents/axelrod_strategies.py): instant, and without the library installed."""
from __future__ import annotations

import json

import click

from harness.core.safe_text import echo

from .options import format_option


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@format_option()
@click.option("--short-run-only", is_flag=True, default=False,
              help="Leave out the strategies of long run time (which --allow-long-run plays).")
def command(format, short_run_only):
    """List every strategy of the Axelrod library (4.13.0) as the agent spec that plays it
    (axelrod:NAME, NAME its class name), with Axelrod's classifier: its memory depth (how
    many past moves it looks at; inf: all), whether it is stochastic, and whether it is of
    long run time (refused unless --allow-long-run). Those Axelrod classifies as cheating
    are listed as refused."""
    # `pdharness` starts light
    from harness.agents.axelrod_strategies import AXELROD_VERSION, catalogue

    strategies = [strategy for strategy in catalogue().values()
                  if not (short_run_only and strategy.long_run_time)]
    if format == "json":
        echo(json.dumps({"axelrod": AXELROD_VERSION,
                         "strategies": [strategy.as_dict() for strategy in strategies]},
                        indent=2))
        return
    width = max(len(strategy.spec) for strategy in strategies)
    echo(f"{'agent':<{width}}  memory  stochastic  long run  Axelrod's name")
    for strategy in strategies:
        depth = "inf" if strategy.memory_depth is None else str(strategy.memory_depth)
        note = "  (cheats: refused)" if strategy.cheats else ""
        echo(f"{strategy.spec:<{width}}  {depth:>6}  {_yes(strategy.stochastic):>10}  "
             f"{_yes(strategy.long_run_time):>8}  {strategy.label}{note}")
    long_run = sum(strategy.long_run_time for strategy in strategies)
    echo(f"{len(strategies)} strategies of the Axelrod library {AXELROD_VERSION}"
         + (f"; {long_run} of long run time (play them with --allow-long-run)"
            if long_run else ""))


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
