"""`pdharness play A B`: one game with a turn-by-turn trace."""
from __future__ import annotations

import json
from pathlib import PurePath
from typing import TYPE_CHECKING

import click

from harness.agents.specs import resolve_one
from harness.core import seeds
from harness.core.counts import counted
from harness.core.errors import HarnessError, LoadError
from harness.core.rules import GameLength
from harness.core.safe_text import echo, line
from harness.engine.game import play_game
from harness.engine.rounds import draw_length

from ..completion import complete_agents
from .options import (
    MAX_GAME_LENGTH,
    bounded,
    format_option,
    game_options,
    game_params,
    isolation,
    option,
    seed_of,
)
from .tournament import say_found, warn_renamed

# imports inside functions here are deferred (`pdharness` starts light)

if TYPE_CHECKING:
    from harness.present.trace import TraceRows


def _open(spec, isolation):
    from harness.isolation.handles.opening import open_handle

    try:
        return open_handle(spec, isolation)
    except LoadError as error:
        raise HarnessError(f"{spec.name} does not load: {error}") from error


def play_once(spec_a, spec_b, options, on_start=None, on_turn=None):
    """The game, as round 1 of a tournament with the same seed would play it.
    `on_start(handles, turns, seed, params)` and `on_turn(record)` let the caller print the
    game while it is played."""
    params = game_params(options)
    seed = seed_of(options)
    turns = options["turns"] or draw_length(seed, 1, GameLength(*options["length"]))
    first, second = sorted((spec_a, spec_b), key=lambda spec: seeds.name_order(spec.name))
    handles = [_open(spec, isolation(options)) for spec in (first, second)]
    try:
        if on_start is not None:
            on_start(handles, turns, seed, params)
        game = play_game(handles[0], handles[1], turns,
                         seeds.game_seed(seed, 1, first.name, second.name), params, 1,
                         on_turn)
    finally:
        for handle in handles:
            handle.close()
    return game, seed, params


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("agent_a", shell_complete=complete_agents)
@click.argument("agent_b", shell_complete=complete_agents)
@click.option("--turns", type=bounded(1, MAX_GAME_LENGTH), default=None,
              help="Turns to play (default: drawn from --length as round 1 would).")
@option("length", help="Where --turns is drawn from when not given.")
@game_options
@format_option()
@click.option("--agent-output/--no-agent-output", default=True, show_default=True,
              help="Show under each turn what the agents printed during it (table format).")
def command(agent_a, agent_b, agent_output, **options):
    """Play one game between AGENT_A and AGENT_B (files or built-in names) and print every
    turn as it is played: intended and played moves (flips marked), the running score, and
    what each agent printed. With the same --seed it is the game round 1 of a tournament
    would play between them."""
    from harness.agents.wording import found_by_name
    from harness.present.trace import trace_dict

    spec_a, spec_b = (_single(resolve_one(name)) for name in (agent_a, agent_b))
    say_found(filter(None, (found_by_name(name, spec) for name, spec in
                            ((agent_a, spec_a), (agent_b, spec_b)))))
    warn_renamed([spec_a, spec_b])
    if options["format"] == "json":
        game, seed, _params = play_once(spec_a, spec_b, options)
        echo(json.dumps(trace_dict(game, seed, spec_a.name), indent=2))
        return
    stream = _Stream(spec_a.name, agent_output, _labels(spec_a, spec_b))
    game, _seed, _params = play_once(spec_a, spec_b, options, stream.start, stream.turn)
    stream.finish(game)


class _Stream:
    """The trace table printed turn by turn while the game is played (a slow or hanging
    agent no longer leaves the screen blank), with what each agent printed during the turn
    under its row. Output arrives through the agent's captured stderr: a line shows under
    the turn in which the monitor received it."""

    INDENT = "      | "

    def __init__(self, first: str, with_output: bool, labels: tuple[str, str] | None = None):
        self.first = first
        self.with_output = with_output
        self.labels = labels   # for two agents of one name (a .py and a .hy of the same team)
        self.rows: TraceRows | None = None
        self.handles: list = []
        self.names: list[str] = []
        self.seen: dict[int, int] = {}   # by side: two agents may share a name

    def start(self, handles, turns, seed, params) -> None:
        from harness.present.trace import TraceRows

        a, b = handles
        self.handles = [b, a] if self.first == b.name and self.first != a.name else [a, b]
        if a.name == b.name and self.labels:  # opened in the order given: label each side
            self.names = list(self.labels)
            rows = self.rows = TraceRows(*self.labels, None, params.moves_per_turn)
        else:
            self.names = [h.name for h in self.handles]
            rows = self.rows = TraceRows(a.name, b.name, self.first, params.moves_per_turn)
        flip = params.flip
        left, right = (line(name) for name in self.names)
        echo(f"{left} vs {right}  seed {seed}  {counted(turns, 'turn')}  "
             f"flip {flip.start:g} {flip.decay:g} ({flip.mode})  "
             f"{params.moves_per_turn} moves/turn")
        echo(rows.head())

    def turn(self, record) -> None:
        assert self.rows is not None  # start() came first
        echo(self.rows.row(len(record.played_a), record.turns[-1]))
        for text in self.rows.talk(record, len(record.played_a) - 1):
            echo(text)
        if self.with_output:
            for side in range(2):
                self._printed(side, echo)

    def _printed(self, side: int, echo) -> None:
        text = self.handles[side].captured_output()
        new, self.seen[side] = text[self.seen.get(side, 0):], len(text)
        for printed in new.splitlines():
            if printed.strip():
                echo(f"{self.INDENT}{line(self.names[side])}: {line(printed)}")

    def finish(self, game) -> None:
        if self.with_output:   # what arrived after the last turn's answer
            for side in range(2):
                self._printed(side, echo)
        assert self.rows is not None
        echo("\n".join(self.rows.foot(game.score)))


def _labels(spec_a, spec_b) -> tuple[str, str]:
    """What to call each side when both agents have one name: their files' names where
    those differ (KhosmoodLevinson.py, KhosmoodLevinson.hy), else the name and a number."""
    files = (PurePath(spec_a.source).name, PurePath(spec_b.source).name)
    if files[0] != files[1]:
        return files
    return f"{spec_a.name} (1)", f"{spec_b.name} (2)"


def _single(specs):
    if len(specs) != 1:
        raise HarnessError(f"play takes one agent on each side, not a folder of {len(specs)}")
    return specs[0]
