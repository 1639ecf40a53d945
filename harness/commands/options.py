"""Options shared by tournament, monitor and play, and turning them into settings."""
from __future__ import annotations

import click

from ..agents import ISOLATION_MODES
from ..rules import DECAY_MODES


def compose(*decorators):
    """Several click decorators as one."""
    def apply(function):
        for decorator in reversed(decorators):
            function = decorator(function)
        return function
    return apply


game_options = compose(
    click.option("--flip", nargs=2, type=float, default=(0.25, 0.1), show_default=True,
                 metavar="F1 I", help="Flip chance F1 and its decay I."),
    click.option("--decay", type=click.Choice(DECAY_MODES), default=DECAY_MODES[0],
                 show_default=True, help="How the flip chance decays (see README, Rules)."),
    click.option("--moves-per-turn", type=click.IntRange(min=1), default=3, show_default=True,
                 help="Moves an agent returns per call (1: the classic game)."),
    click.option("--payoffs", nargs=4, type=int, default=(5, 3, 1, 0), show_default=True,
                 metavar="T R P S", help="Payoff table; must keep T>R>P>S and 2R>T+S."),
    click.option("--timeout", type=float, default=1.0, show_default=True,
                 help="Seconds an agent may take per call."),
    click.option("--on-fault", type=click.Choice(["cooperate", "defect"]),
                 default="cooperate", show_default=True,
                 help="The answer played for an agent's faulty turn."),
    click.option("--isolation", type=click.Choice(ISOLATION_MODES), default="sandbox",
                 show_default=True,
                 help="sandbox: own process in bubblewrap; process: own process; "
                      "none: inside the monitor (trusted code only)."),
    click.option("--memory-limit", type=click.IntRange(min=16), default=1024,
                 show_default=True, metavar="MIB",
                 help="Address space an agent's process may use, in MiB."),
    click.option("--seed", type=click.IntRange(min=0), default=None,
                 help="Tournament seed (random if absent; always printed)."),
)

tournament_options = compose(
    click.option("--length", nargs=2, type=int, default=(10, 50), show_default=True,
                 metavar="LMIN LMAX", help="Game length drawn per round, inclusive (the "
                 "fixed length L L, or the cap of a geometric horizon)."),
    click.option("--horizon", type=click.Choice(("uniform", "fixed", "geometric")),
                 default="uniform", show_default=True,
                 help="Game lengths: one per round from --length (the Levinson rule), every "
                      "game --length L L, or ending after each turn with --stop-prob."),
    click.option("--stop-prob", type=float, default=None, metavar="P",
                 help="--horizon geometric: the chance a game ends after each turn."),
    click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                 help="Games played at once (default: every core)."),
    click.option("--max-rounds", type=click.IntRange(min=1), default=None,
                 help="Stop after this many rounds."),
    click.option("--max-faults", type=click.IntRange(min=1), default=None,
                 help="Disqualify an agent once it has this many faults."),
    click.option("--disqualify-broken", is_flag=True,
                 help="Agents that do not load leave before round 1 "
                      "(default: they play the default answer)."),
)


def game_params(options):
    from ..rules import FlipParams, GameParams, Payoffs

    return GameParams(
        flip=FlipParams(options["flip"][0], options["flip"][1], options["decay"]),
        moves_per_turn=options["moves_per_turn"],
        payoffs=Payoffs(*options["payoffs"]),
        timeout=options["timeout"],
        default_answer="C" if options["on_fault"] == "cooperate" else "D")


def isolation(options):
    from ..handles.opening import Isolation

    return Isolation(options["isolation"], options["timeout"],
                     options["memory_limit"] * 1024 * 1024)


def settings(options):
    from ..rules import GameLength
    from ..tournament import Settings

    return Settings(game=game_params(options),
                    length=GameLength(*options["length"], options.get("horizon", "uniform"),
                                      options.get("stop_prob")),
                    isolation=isolation(options),
                    jobs=options["jobs"],
                    max_rounds=options["max_rounds"],
                    max_faults=options["max_faults"],
                    disqualify_broken=options["disqualify_broken"])


def seed_of(options) -> int:
    from ..seeds import fresh_seed

    return options["seed"] if options["seed"] is not None else fresh_seed()
