"""A ladder's site (`pdharness ladder --site DIR`): static pages a web server can serve as
they are, each written atomically (a temporary file, then os.replace), so a reader never
gets half a page.

- `index.html`: the leaderboard (rating mean and uncertainty, wins/draws/losses, mean
  score a game), reference agents marked, and what the last pass said of submissions;
- `agent-NAME.html`: an agent's rating over time (inline SVG), its versions, its games;
- `game-ID.html`: one game turn by turn, as the tournament report shows a game
  (evidence.turns_text), written once (a game never changes).

No page loads anything from another host, runs a script or needs a wide screen. Names are
the board's (pseudonyms unless `--names real`); every value is escaped by the templates'
autoescaping and, for what a browser would obey beyond markup (bidi overrides, controls),
by safe_text.line. The board is the ladder's (harness/run/ladder/board.py), passed in: this
layer imports nothing above it.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from harness.core.counts import counted
from harness.core.safe_text import block, line

from .csv_table import write_csv
from .evidence import turns_text
from .tournament_report import template

NOTE = ("The ladder is practice: it rates agents from many short games against the class. "
        "Grades come from the course's tournament (its elimination rules), never from here.")
NAMES_STAMP = ".ladder-names"     # which names the game pages were written with


def write_site(folder: Path, board, names: str, game_of, title: str = "Ladder") -> int:
    """Every page of the site into FOLDER; `game_of(id)` gives a game's GameRecord (sides
    named as the board shows them), for the pages of games not written yet. The number of
    pages written."""
    folder.mkdir(parents=True, exist_ok=True)
    page = template("ladder.html")
    written = 0
    agents = {entry.agent: entry for entry in board.entries if entry.versions}
    shown = {entry.agent: _shown(entry, names) for entry in agents.values()}
    links = {entry.agent: agent_page(entry) for entry in agents.values()}
    write_atomically(folder / "index.html", page.render(
        title=title, kind="board", note=NOTE, names=names,
        line=_summary(board), rows=_rows(board, names, links)))
    written += 1
    for entry in agents.values():
        write_atomically(folder / links[entry.agent], page.render(
            title=f"{shown[entry.agent]} · {title}", kind="agent", note=NOTE, names=names,
            agent=_agent(entry, shown, links, names)))
        written += 1
    rewrite = _stamp(folder) != names
    for entry in agents.values():
        for game_id, *_ in entry.game_ids:
            target = folder / game_page(game_id)
            if target.exists() and not rewrite:
                continue
            game = game_of(game_id)
            if game is None:
                continue
            write_atomically(target, page.render(
                title=f"Game {game_id} · {title}", kind="game", note=NOTE, names=names,
                game=_game(game_id, game, shown, links,
                           [agents[name] for name in (game.a, game.b) if name in agents],
                           names)))
            written += 1
    write_atomically(folder / NAMES_STAMP, names)
    return written


def agent_page(entry) -> str:
    """An agent's page, named by its pseudonym (or a reference's own name), never the team."""
    return f"ref-{entry.agent}.html" if entry.reference else f"agent-{entry.pseudonym}.html"


def game_page(game_id: int) -> str:
    return f"game-{game_id}.html"


def write_atomically(path: Path, text: str) -> None:
    """PATH holds TEXT whole, or what it held before: never a part."""
    fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(partial, 0o644)
        os.replace(partial, path)
    except BaseException:
        try:
            os.unlink(partial)
        except OSError:
            pass
        raise


def pseudonym_csv(board) -> str:
    """The instructor's key: each pseudonym and the team it stands for (CSV, cells safe for
    a spreadsheet)."""
    return write_csv(["pseudonym", "agent", "reference"],
                     [[entry.pseudonym, entry.agent, "yes" if entry.reference else "no"]
                      for entry in sorted((e for e in board.entries if e.versions),
                                          key=lambda e: e.pseudonym)])


# -- what each page shows -----------------------------------------------------------------
def _shown(entry, names: str) -> str:
    if entry.reference or names == "real":
        return line(entry.agent)
    return line(entry.pseudonym) if entry.pseudonym else "an unreadable submission"


def _masked(text: str, entry, names: str, escape=line) -> str:
    """A message (validation's, a read error's) as the public board may show it: under
    pseudonyms, the team's name - in the agent's function, its file's name, its path -
    becomes the pseudonym."""
    if names == "real" or entry.reference or not entry.agent:
        return escape(text)
    stand_in = entry.pseudonym or "a submission"
    return escape(re.sub(re.escape(entry.agent), stand_in, text, flags=re.IGNORECASE))


def _summary(board) -> str:
    passes = board.passes
    last = passes[-1] if passes else None
    when = f" · last pass {last[0]} at {last[2] or last[1]}" if last else ""
    playing = sum(1 for e in board.entries if e.rating is not None)
    return (f"{counted(playing, 'agent')} rated · {counted(board.games_played, 'game')}"
            f"{when}")


def _rows(board, names: str, links) -> list[dict]:
    rows, rank = [], 0
    for entry in board.entries:
        rated = entry.rating is not None
        rank += rated
        rows.append({
            "rank": rank if rated else "", "name": _shown(entry, names),
            "href": links.get(entry.agent, "") if entry.versions else "",
            "reference": entry.reference,
            "mu": f"{entry.rating.mu:.2f}" if rated else "–",
            "sigma": f"{entry.rating.sigma:.2f}" if rated else "–",
            "wdl": f"{entry.wins}/{entry.draws}/{entry.losses}",
            "mean": f"{entry.mean_score:.1f}" if entry.mean_score is not None else "–",
            "games": entry.games, "status": line(entry.status),
            "version": (entry.version or "")[:12],
            "message": _cut(_masked(entry.message, entry, names))})
    return rows


def _agent(entry, shown, links, names: str) -> dict:
    games = [{"href": game_page(game_id), "id": game_id, "opponent": shown.get(other, line(other)),
              "opponent_href": links.get(other, ""), "score": f"{mine}–{theirs}",
              "result": "win" if mine > theirs else "draw" if mine == theirs else "loss",
              "version": digest[:12]}
             for game_id, other, mine, theirs, digest in sorted(entry.game_ids, reverse=True)]
    return {"name": shown[entry.agent], "reference": entry.reference,
            "rating": (f"{entry.rating.mu:.2f} ± {entry.rating.sigma:.2f}"
                       if entry.rating else "not rated"),
            "wdl": f"{entry.wins} wins, {entry.draws} draws, {entry.losses} losses",
            "chart": _chart(entry.history),
            "versions": [{"digest": v.digest[:12], "full": v.digest, "pass": v.seen_in,
                          "ok": v.ok, "current": v.digest == entry.version,
                          "problems": [f"{line(code)}: {_cut(_masked(message, entry, names))}"
                                       for code, message in v.problems]}
                         for v in reversed(entry.versions)],
            "games": games}


def _game(game_id: int, game, shown, links, sides, names: str) -> dict:
    text = turns_text(game)   # its fault messages may name a file or function
    for entry in sides:
        text = _masked(text, entry, names, block)
    return {"id": game_id, "a": shown.get(game.a, line(game.a)),
            "b": shown.get(game.b, line(game.b)),
            "a_href": links.get(game.a, ""), "b_href": links.get(game.b, ""),
            "score": f"{game.score[0]}–{game.score[1]}", "length": game.length,
            "number": game.round, "faults": game.fault_count("a") + game.fault_count("b"),
            "text": text}


def _chart(history) -> dict | None:
    """The rating (mean, and the band of one uncertainty either side) after each pass that
    changed it, as SVG geometry."""
    if not history:
        return None
    width, height, left, top, bottom = 560, 220, 44, 12, 28
    passes = [number for number, _ in history]
    lows = [r.mu - r.sigma for _, r in history]
    highs = [r.mu + r.sigma for _, r in history]
    low, high = min(lows), max(highs)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    first, last = passes[0], passes[-1]

    def x(number):
        return left + (width - left - 10) * ((number - first) / (last - first)
                                             if last > first else 0.5)

    def y(value):
        return top + (height - top - bottom) * (high - value) / (high - low)

    line_points = " ".join(f"{x(n):.1f},{y(r.mu):.1f}" for n, r in history)
    band = [f"{x(n):.1f},{y(r.mu + r.sigma):.1f}" for n, r in history] + \
        [f"{x(n):.1f},{y(r.mu - r.sigma):.1f}" for n, r in reversed(history)]
    ticks = [{"y": f"{y(value):.1f}", "text": f"{value:.0f}"}
             for value in _ticks(low, high)]
    return {"width": width, "height": height, "line": line_points, "band": " ".join(band),
            "points": [{"x": f"{x(n):.1f}", "y": f"{y(r.mu):.1f}",
                        "tip": f"after pass {n}: {r.mu:.2f} ± {r.sigma:.2f}"}
                       for n, r in history],
            "ticks": ticks, "left": left, "axis_y": height - bottom,
            "first": first, "last": last, "right": width - 10}


def _ticks(low: float, high: float) -> list[int]:
    step = max(1, round((high - low) / 4))
    start = int(low // step + 1) * step
    return [value for value in range(start, int(high) + 1, step)][:6]


def _cut(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _stamp(folder: Path) -> str | None:
    try:
        return (folder / NAMES_STAMP).read_text(encoding="utf-8")
    except OSError:
        return None
