"""`pdharness play A B`: one game with a turn-by-turn trace."""
from __future__ import annotations

import json

import click

from .options import game_options


def _open(spec, isolation):
    from ..errors import HarnessError, LoadError
    from ..handles.opening import open_handle

    try:
        return open_handle(spec, isolation)
    except LoadError as error:
        raise HarnessError(f"{spec.name} does not load: {error}")


def play_once(spec_a, spec_b, options):
    """The game, as round 1 of a tournament with the same seed would play it."""
    from .. import seeds
    from ..game import play_game
    from ..rounds import draw_length
    from ..rules import GameLength
    from .options import game_params, isolation, seed_of

    params = game_params(options)
    seed = seed_of(options)
    turns = options["turns"] or draw_length(seed, 1, GameLength(*options["length"]))
    first, second = sorted((spec_a, spec_b), key=lambda spec: spec.name)
    handles = [_open(spec, isolation(options)) for spec in (first, second)]
    try:
        game = play_game(handles[0], handles[1], turns,
                         seeds.game_seed(seed, 1, first.name, second.name), params, 1)
    finally:
        for handle in handles:
            handle.close()
    return game, seed, params


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("agent_a")
@click.argument("agent_b")
@click.option("--turns", type=click.IntRange(min=1), default=None,
              help="Turns to play (default: drawn from --length as round 1 would).")
@click.option("--length", nargs=2, type=int, default=(10, 50), show_default=True,
              metavar="LMIN LMAX", help="Where --turns is drawn from when not given.")
@game_options
@click.option("--format", "format", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
def command(agent_a, agent_b, **options):
    """Play one game between AGENT_A and AGENT_B (files or built-in names) and print every
    turn: intended and played moves (flips marked) and the running score. With the same
    --seed it is the game round 1 of a tournament would play between them."""
    from ..agents import resolve_one
    from ..safe_text import echo, line
    from ..trace import trace_dict, trace_table

    spec_a, spec_b = (_single(resolve_one(name)) for name in (agent_a, agent_b))
    game, seed, params = play_once(spec_a, spec_b, options)
    if options["format"] == "json":
        echo(json.dumps(trace_dict(game, seed, spec_a.name), indent=2))
        return
    flip = params.flip
    header = (f"{line(spec_a.name)} vs {line(spec_b.name)}  seed {seed}  "
              f"{len(game.turns)} turns  flip {flip.start:g} {flip.decay:g} ({flip.mode})  "
              f"{params.moves_per_turn} moves/turn")
    echo(trace_table(game, seed, spec_a.name, header))


def _single(specs):
    from ..errors import HarnessError

    if len(specs) != 1:
        raise HarnessError(f"play takes one agent on each side, not a folder of {len(specs)}")
    return specs[0]
