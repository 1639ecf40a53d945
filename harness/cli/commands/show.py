"""`pdharness show FILE.sqlite`: a recorded run - its standings, one agent's games and
faults (--agent), or one game turn by turn (--game), exactly as `play` prints a game."""
from __future__ import annotations

import json

import click
from click.core import ParameterSource

from harness.core.counts import counted, noun_for
from harness.core.errors import HarnessError
from harness.core.safe_text import block, echo, line

from .options import bounded
from .output_options import output_options, outputs_of, result_format_option


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("record", type=click.Path(dir_okay=False))
@click.option("--game", "game_id", type=bounded(1), default=None, metavar="ID",
              help="Print game ID turn by turn: intended and played moves, flips, faults, "
                   "running score (IDs are listed by --agent).")
@click.option("--agent", "agent_name", default=None, metavar="NAME",
              help="Print this agent's games and faults (with --game: its side on the left).")
@click.option("--all-faults", is_flag=True,
              help="With --agent: list every fault (default: a count by kind and the "
                   "first few of each).")
@click.option("--provisional", is_flag=True,
              help="With --grades on an unfinished record: write them anyway, marked "
                   "provisional in the file (refused without it).")
@result_format_option
@output_options
def command(record, game_id, agent_name, all_faults, **options):
    """Show the run recorded in RECORD (made by `tournament --db`): its standings; with
    --agent an agent's games and faults; with --game one game turn by turn. --report,
    --grades and --format work as for `tournament`, from the record."""
    from harness.store.reader import Record  # `pdharness` starts light

    with Record(record) as opened:
        if game_id is not None:
            _show_game(opened, game_id, agent_name, options["format"])
        elif agent_name is not None:
            _show_agent(opened, agent_name, options["format"], all_faults)
        else:
            _show_run(opened, options)


def _incomplete_note(opened) -> str | None:
    if opened.finished:
        return None
    rounds = len(opened.query("SELECT number FROM round"))
    if opened.tournament_done():
        return (f"Incomplete record: the tournament is complete, its replicates are not; "
                f"finish with: pdharness resume {opened.path}")
    return (f"Incomplete record: {rounds} completed round{'s' * (rounds != 1)}, standings "
            f"are provisional; finish with: pdharness resume {opened.path}")


def _not_from_the_course_file(options) -> None:
    """The course file's report and grades are its tournament's outputs: `show` of some
    record must not silently replace them. It writes them only when its own command line
    asks (--report, --grades), and says what it left alone."""
    context = click.get_current_context(silent=True)
    if context is None:
        return
    skipped = []
    for name in ("report", "grades"):
        if options.get(name) and context.get_parameter_source(name) == \
                ParameterSource.DEFAULT_MAP:
            skipped.append(f"{name} = {options[name]}")
            options[name] = None
    if skipped:
        echo(f"pdharness: not written: the course file's {line(', '.join(skipped))} (its "
             "tournament's outputs); give --report or --grades here to write them from this "
             "record", err=True)


def _show_run(opened, options) -> None:
    from harness.present import outputs  # `pdharness` starts light

    _not_from_the_course_file(options)
    note = _incomplete_note(opened)
    if note and options.get("grades") and not options.get("provisional"):
        raise HarnessError(f"--grades {options['grades']}: {opened.path} is unfinished, its "
                           "standings provisional: finish it (pdharness resume "
                           f"{opened.path}) or add --provisional to write grades marked as "
                           "such")
    if not note:
        options["provisional"] = False  # a finished record's grades are final

    asked = outputs_of(options)
    roster = outputs.check_outputs(asked)
    if note:
        if options["format"] == "table":
            echo(line(note) + "\n")
        else:
            echo(f"pdharness: {line(note)}", err=True)
    command = opened.run["command"]
    if command and "  # from " in command:   # values a course file gave: say which
        echo(f"pdharness: recorded as: {line(command)}", err=True)
    outputs.deliver(opened.result(), asked, roster, command=command, incomplete=note)


def _find_agent(opened, name):
    row = opened.find_agent(name)
    if row is None:
        names = ", ".join(r["name"] for r in opened.agent_rows())
        raise HarnessError(f"no agent {name!r} in {opened.path} (agents: {names})")
    return row


def _show_game(opened, game_id, agent_name, chosen) -> None:
    from harness.present.trace import trace_dict, trace_table  # `pdharness` starts light

    game = opened.game(game_id)
    if game is None:
        count = opened.query("SELECT count(*) FROM game")[0][0]
        raise HarnessError(f"no game {game_id} in {opened.path} (games 1-{count})"
                           if count else f"no game {game_id}: {opened.path} holds no games")
    first = _find_agent(opened, agent_name)["name"] if agent_name else None
    if first is not None and first not in (game.a, game.b):
        raise HarnessError(f"{first} did not play game {game_id} ({game.a} vs {game.b})")
    if chosen == "json":
        trace = trace_dict(game, opened.seed, first)
        echo(json.dumps({"game": game_id, "round": game.round, **trace}, indent=2))
        return
    flip = opened.settings.game.flip
    left, right = (game.b, game.a) if first == game.b else (game.a, game.b)
    header = (f"Game {game_id}, round {game.round}: {line(left)} vs {line(right)}  "
              f"run seed {opened.seed}  "   # not the game's: play --seed replays round 1
              f"{len(game.turns)} turn{'' if len(game.turns) == 1 else 's'}  flip {flip.start:g} {flip.decay:g} ({flip.mode})  "
              f"{opened.settings.game.moves_per_turn} moves/turn")
    echo(trace_table(game, opened.seed, first, header))


def _show_agent(opened, name, chosen, all_faults: bool = False) -> None:
    row = _find_agent(opened, name)
    name = row["name"]
    games = opened.query("SELECT * FROM game WHERE a = ? OR b = ? ORDER BY id", name, name)
    faults = opened.query("SELECT f.*, g.round FROM fault f JOIN game g ON g.id = f.game "
                          "WHERE f.agent = ? ORDER BY f.game, f.turn", name)
    if chosen == "json":
        echo(json.dumps(_agent_dict(row, games, faults), indent=2))
        return
    echo(_agent_text(row, games, faults, all_faults))


def _agent_games(row, games):
    name = row["name"]
    for game in games:
        mine = "a" if game["a"] == name else "b"
        theirs = "b" if mine == "a" else "a"
        yield game, mine, theirs


def _agent_dict(row, games, faults) -> dict:
    return {
        "agent": row["name"], "language": row["language"], "source": row["source"],
        "sha256": row["sha256"], "status": row["status"], "message": row["message"],
        "rank": row["rank"], "score": row["score"], "dropped_in": row["dropped_in"],
        "games": [{"game": g["id"], "round": g["round"], "opponent": g[theirs],
                   "score": [g[f"score_{mine}"], g[f"score_{theirs}"]],
                   "faults": g[f"faults_{mine}"], "warning": g[f"warning_{mine}"]}
                  for g, mine, theirs in _agent_games(row, games)],
        "faults": [{"game": f["game"], "round": f["round"], "turn": f["turn"],
                    "kind": f["kind"], "message": f["message"]} for f in faults],
        "output": row["output"],
    }


def _agent_text(row, games, faults, all_faults: bool = False) -> str:
    """For a terminal: every text the record holds escaped (`line`; the output, `block`)."""
    out = row["dropped_in"]
    place = ("did not play" if out == 0 else f"dropped in round {out}" if out
             else "last standing" if row["rank"] else "still in")
    lines = [f"{line(row['name'])}  ({line(row['language'])}, {line(row['source'])})",
             f"  status {line(row['status'])}"
             + (f": {line(row['message'])}" if row["message"] else ""),
             f"  rank {row['rank'] if row['rank'] is not None else '-'}  "
             f"score {row['score'] if row['score'] is not None else '-'}  {place}"]
    if row["sha256"]:
        lines.append(f"  source sha256 {line(row['sha256'])}")
    lines += ["", f"Games ({len(games)}):",
              f"  {'game':>5}  {'round':>5}  {'opponent':<20}  {'score':>11}  faults"]
    for g, mine, theirs in _agent_games(row, games):
        score = f"{g[f'score_{mine}']}-{g[f'score_{theirs}']}"
        lines.append(f"  {g['id']:>5}  {g['round']:>5}  {line(g[theirs]):<20}  {score:>11}  "
                     f"{g[f'faults_{mine}'] or '-'}")
    lines += ["", *_fault_lines(faults, all_faults)]
    warnings = [(g["id"], g[f"warning_{mine}"]) for g, mine, _ in _agent_games(row, games)
                if g[f"warning_{mine}"]]
    if warnings:
        lines += ["", "Warnings (the first of each game):", *_warning_lines(warnings)]
    if row["output"]:
        lines += ["", "What its process printed:", block(row["output"]).rstrip()]
    lines += ["", "Any game turn by turn: pdharness show FILE --game ID"]
    return "\n".join(lines)


FAULTS_SHOWN = 3     # per kind, unless --all-faults


def _warning_lines(warnings: list[tuple[int, str]]) -> list[str]:
    """Each warning once, with the games it was the first of: the same note 29 times over
    says less than `in 29 games (3, 4, ...)`."""
    games: dict[str, list[int]] = {}
    for game_id, text in warnings:
        games.setdefault(text, []).append(game_id)
    lines = []
    for text, ids in games.items():
        if len(ids) == 1:
            lines.append(f"  game {ids[0]}: {line(text)}")
            continue
        listed = ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")
        lines.append(f"  in {counted(len(ids), 'game')} ({listed}): {line(text)}")
    return lines


def _fault_lines(faults, every: bool) -> list[str]:
    """A count by kind, then the first few of each kind (an agent can fault thousands of
    times), or every fault with --all-faults."""
    if not faults:
        return ["Faults: none"]
    by_kind: dict[str, list] = {}
    for fault in faults:
        by_kind.setdefault(fault["kind"], []).append(fault)
    counts = ", ".join(f"{len(found)} {line(kind)}" for kind, found in by_kind.items())
    lines = [f"Faults ({len(faults)}: {counts}):"]
    for kind, found in by_kind.items():
        shown = found if every else found[:FAULTS_SHOWN]
        for f in shown:
            lines.append(f"  game {f['game']} (round {f['round']}) turn {f['turn']}: "
                         f"{line(f['kind'])}: {line(f['message'])}")
        if len(found) > len(shown):
            lines.append(f"  ... and {len(found) - len(shown)} more {line(kind)} "
                         f"{noun_for(len(found) - len(shown), 'fault')} "
                         "(--all-faults lists every one)")
    return lines
