"""`pdharness ladder SUBMISSIONS --db FILE [--site DIR]`: one pass of the term's ladder (for
cron), or one every MINUTES (`--every`) until stopped."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from harness.agents.builtins import BUILTINS
from harness.core.errors import HarnessError
from harness.core.safe_text import block, echo, line

from .options import bounded, format_option, game_options, options, settings

# imports inside functions here are deferred (`pdharness` starts light)


def _references(ctx, param, value):
    """`--reference titfortat,grudger`: built-in agents' names, each one checked."""
    names: list[str] = []
    for text in value or ():
        for name in filter(None, (part.strip() for part in text.split(","))):
            if name not in BUILTINS:
                raise click.BadParameter(f"{name!r} is not a built-in agent (one of "
                                         f"{', '.join(sorted(BUILTINS))})")
            if name not in names:
                names.append(name)
    return tuple(names)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("submissions", type=click.Path(file_okay=False), metavar="SUBMISSIONS")
@click.option("--db", type=click.Path(dir_okay=False), required=True, metavar="FILE.sqlite",
              help="The ladder's record: made by the first pass, carried on by the next.")
@click.option("--site", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write the ladder's static pages here (leaderboard, agents, games).")
@click.option("--games-per-pair", type=bounded(1, 1000), default=4, show_default=True,
              metavar="K", help="Games each pair of current versions plays, once.")
@click.option("--every", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="MINUTES", help="Pass again every MINUTES until stopped (SIGTERM, "
                                      "Ctrl-C); without it, one pass.")
@click.option("--reference", "references", multiple=True, callback=_references,
              metavar="NAME,...", help="Built-in agents that play as fixed reference "
                                       "agents, marked on the board (e.g. titfortat,grudger).")
@click.option("--names", type=click.Choice(("pseudonyms", "real")), default="pseudonyms",
              show_default=True, help="What the board calls agents: stable pseudonyms, or "
                                      "the teams' names.")
@click.option("--pseudonyms", "pseudonyms", type=click.Path(dir_okay=False), default=None,
              metavar="FILE.csv", help="The instructor's key from pseudonyms to teams "
                                       "(default: beside the record, FILE.sqlite.pseudonyms"
                                       ".csv; never in the site).")
@click.option("--roster", type=click.Path(dir_okay=False),
              help="CSV of the teams, as validate takes it: a name must spell a team on it.")
@format_option()
@game_options
@options("length", "horizon", "stop_prob", "jobs", "cluster")
def command(submissions, db, site, games_per_pair, every, references, names, pseudonyms,
            roster, format, **values):
    """One pass of the term's ladder over SUBMISSIONS (a folder of agent files and
    bundles): new versions validated as `validate` does, every pair of current versions
    plays --games-per-pair games once under the course's rules, ratings (openskill's
    Plackett-Luce) from every recorded game. The tournament stays the grade: the ladder
    is practice."""
    from harness.run.ladder import ratings
    from harness.run.ladder.loop import Outputs, every as keep_passing, one_pass
    from harness.run.ladder.passes import LadderOptions

    ratings.model()   # no openskill: one line now, before anything is read or played
    chosen = settings(values)
    folder = Path(submissions)
    if not folder.is_dir():
        raise HarnessError(f"{submissions}: no such folder of submissions")
    roster_read = None
    if roster:
        from harness.validation.roster import Roster

        roster_read = Roster.read(Path(roster))
    record = Path(db)
    ladder = LadderOptions(folder, record, chosen, values.get("seed"), games_per_pair,
                           references, roster_read)
    outputs = Outputs(Path(site) if site else None, names,
                      Path(pseudonyms) if pseudonyms else record.with_name(
                          record.name + ".pseudonyms.csv"))
    report = _reporter(format, names)
    if every is None:
        report(*one_pass(ladder, outputs, _say))
        return
    try:
        keep_passing(ladder, outputs, every, _say, report)
    except KeyboardInterrupt:
        from harness.core.interrupts import exit_status

        _say("stopped during a pass: its finished games are kept; the next pass plays "
             "the rest")
        sys.exit(exit_status())


def _say(text: str) -> None:
    click.echo(f"pdharness: ladder: {line(text)}", err=True)


def _reporter(format: str, names: str):
    def report(result, board) -> None:
        from harness.run.ladder.board import as_json

        _say(f"pass {result.number}: {result.played} game"
             f"{'s' * (result.played != 1)} played of {result.owed} owed (reading and "
             f"validating {result.reading:.1f} s, games {result.playing:.1f} s)")
        if format == "json":
            echo(json.dumps(as_json(board, names)))
        else:
            click.echo(block(_table(board, names)))
    return report


def _table(board, names: str) -> str:
    from harness.run.ladder.board import shown_name

    rows = [("#", "agent", "rating", "±", "W/D/L", "games", "status")]
    rank = 0
    for entry in board.entries:
        rated = entry.rating is not None
        rank += rated
        rows.append((str(rank) if rated else "", line(shown_name(entry, names))
                     + (" (reference)" if entry.reference else ""),
                     f"{entry.rating.mu:.2f}" if rated else "–",
                     f"{entry.rating.sigma:.2f}" if rated else "–",
                     f"{entry.wins}/{entry.draws}/{entry.losses}", str(entry.games),
                     entry.status))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
                     .rstrip() for row in rows)
