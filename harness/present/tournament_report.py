"""`--report FILE.html`: one self-contained page about a tournament, made for people.

Standings, who was dropped in which round, a head-to-head heat map, how each agent played
(cooperation, faults), replicates when there are any, the rounds, the parameters and seed.
Charts are inline SVG and style is inline CSS: the file opens offline and has no script.

This module works out what the page shows (figures, chart geometry); the markup is the
Jinja2 template templates/report.html, rendered with autoescaping, so every value on the
page is escaped - agent names and messages, and everything read from a record, which
anyone can edit - without an escape call to forget. Jinja2 is imported only here.
"""
from __future__ import annotations

from pathlib import Path

from harness.agents.llm.model_metrics import summary
from harness.core.counts import counted
from harness.core.errors import HarnessError
from harness.core.verdicts import FAULT_KINDS, STATUSES, Status
from harness.store.metrics import of_result

from .ecology_chart import ecology_chart
from .evidence import evidence, game_views, linked_games, source_hash
from .formats import params_dict
from .outcome import CO_WINNERS, WINNER, default_answer_notes, ending

# viridis, from few points per move to many
_PALETTE = ((0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)),
            (0.75, (94, 201, 98)), (1.0, (253, 231, 37)))


def render(result, metrics=None, title: str | None = None, command: str | None = None,
           incomplete: str | None = None) -> str:
    metrics = metrics or of_result(result)
    params = params_dict(result.settings)
    replicates = getattr(result, "replicates", None)

    linked = linked_games(result)
    return template().render(
        title=title or f"Levinson tournament, seed {result.seed}",
        header=_header(result, incomplete),
        standings=_standings(result, metrics, incomplete),
        elimination=_elimination(result, incomplete),
        heat=_heat_map(result, metrics, params, linked.first_of_pair),
        evidence=evidence(result),
        games=game_views(result, linked.ids),
        play=_play(result, metrics),
        replicates=_replicates(replicates) if replicates else None,
        ecology=_ecology(result),
        llm=_llm(result),
        faults=_faults(result),
        rounds=_rounds(result),
        parameters=[(key, param_text(value))
                    for key, value in dict(seed=result.seed, **params).items()],
        command=command, fault_kinds=FAULT_KINDS)


def _ecology(result):
    """`tournament --ecology`: the chart of the shares (drawn by the template)."""
    if result.ecology is None:
        return None

    return {"chart": ecology_chart(result.ecology),
            "generations": result.ecology.generations,
            "survivors": result.ecology.survivors()}


def _llm(result) -> list[dict] | None:
    """The language-model agents' metrics (harness/agents/llm/model_metrics.py), when any
    played."""
    if not any(game.talk for game in result.games):
        return None

    found = summary(result.games) or {"agents": {}}
    return [{"agent": name, **{key: "–" if value is None else value
                               for key, value in m.items()}}
            for name, m in found["agents"].items()]


def template(name: str = "report.html"):
    """A page template of templates/, with autoescaping on (and no value left undefined)."""
    import jinja2  # heavy (jinja2): loaded only where used

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    environment.globals["statuses"] = STATUSES   # ok first: its colour, then the others'
    return environment.get_template(name)


def write_report(path, result, **options) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render(result, **options))
    except OSError as error:
        raise HarnessError(f"--report {path}: cannot write: {error.strerror}") from error


# -- sections: what each shows ---------------------------------------------------------------
def _header(result, incomplete) -> dict:
    end = ending(result, bool(incomplete))
    return {"line": (f"seed {result.seed} · {counted(len(result.entrants), 'agent')} · "
                     f"{counted(len(result.rounds), 'round')} · "
                     f"{counted(len(result.games), 'game')}"),
            "incomplete": incomplete,
            "ending": None if end.kind == WINNER else end.headline,
            "winners": [s.agent for s in result.standings if s.dropped_in is None],
            "notes": list(default_answer_notes(result).values())}


def _standings(result, metrics, incomplete=None) -> list[dict]:
    entrants = {e.name: e for e in result.entrants}
    end = ending(result, bool(incomplete))
    rows = []
    for s in result.standings:
        entrant, tally = entrants[s.agent], metrics.agents[s.agent].as_dict()
        digest = source_hash(entrant)
        rows.append({
            "winner": s.dropped_in is None and end.kind in (WINNER, CO_WINNERS),
            "rank": s.rank, "agent": s.agent,
            "language": entrant.spec.language, "score": s.score,
            "out": _out_text(s.dropped_in, end.out_word),
            "sha": digest or "", "sha_short": digest[:12] if digest else "–",
            "cooperation": _percent(tally["cooperation_played"]),
            "points": _decimal(tally["points_per_move"]),
            "faults": ", ".join(f"{n} {kind}" for kind, n in s.faults.items() if n) or "–",
            "status": entrant.status})
    return rows


def _elimination(result, incomplete=None) -> dict | None:
    rounds = len(result.rounds)
    if not rounds:
        return None
    names = [s.agent for s in result.standings]
    label = label_width(names)
    step = max(28, min(90, 640 // rounds))
    row, top = 24, 26
    width = label + step * rounds + 170
    height = top + row * len(names) + 8
    columns = [{"x": label + step * (number - 1),
                "middle": f"{label + step * (number - 1) + step / 2:.1f}",
                "label": f"{'R' if rounds > 12 else 'round '}{number}"}
               for number in range(1, rounds + 1)]
    scores = {name: [r.scores.get(name) for r in result.rounds] for name in names}
    bars = []
    for index, standing in enumerate(result.standings):
        out = standing.dropped_in
        last = rounds if out is None else out
        played = [s for s in scores[standing.agent][:last] if s is not None]
        bars.append({
            "agent": standing.agent, "y": top + row * index, "played": last != 0,
            "width": step * last - 4, "colour": "#e0a800" if out is None else "#7c93b0",
            "tip": f"{standing.agent}: round scores {', '.join(map(str, played))}",
            "note_x": label + step * last + 4,
            "note": (ending(result, bool(incomplete)).out_word if out is None
                     else f"dropped in round {out}")})
    return {**chart(width, height, "elimination-chart",
                     "Rounds each agent played; the bar ends in the round it was dropped"),
            "label": label, "row": row, "columns": columns, "bars": bars,
            "axis_end": height - 4}


def _heat_map(result, metrics, params, first_of_pair=None) -> dict | None:
    names = [s.agent for s in result.standings]
    if len(names) < 2:
        return None
    table = metrics.head_to_head()
    payoffs = params["payoffs"]
    low, high = payoffs["S"], payoffs["T"]
    cell = max(18, min(46, 620 // len(names)))
    label = label_width(names)
    slant = 0.72 * (label - 16) + 6        # a column name, written at 45 degrees
    top = slant + 10
    width = max(label + cell * (len(names) - 0.5) + slant + 6, label + 270)
    height = top + cell * len(names) + 64
    columns = [{"name": name, "x": f"{label + cell * j + cell / 2:.1f}",
                "y": f"{top - 6:.1f}"} for j, name in enumerate(names)]
    rows = []
    for i, me in enumerate(names):
        y = top + cell * i
        cells = []
        for j, them in enumerate(names):
            x = label + cell * j
            value = table.get(me, {}).get(them)
            if me == them or value is None:
                shown = {"fill": "#eef1f4", "text": "", "href": "",
                         "tip": "itself" if me == them else f"{me} never played {them}"}
            else:
                shown = {"fill": _colour((value - low) / (high - low) if high > low else 0.5),
                         "text": f"{value:.1f}" if cell >= 30 else "",
                         "tip": f"{me} vs {them}: {value:.2f} points per move",
                         "ink": ("#1d232a" if (value - low) / max(1, high - low) > 0.55
                                 else "#ffffff")}
                game = (first_of_pair or {}).get(frozenset((me, them)))
                shown["href"] = f"#game-{game}" if game else ""
            cells.append({"x": x, "text_x": f"{x + cell / 2 - 0.5:.1f}", **shown})
        rows.append({"name": me, "y": f"{y:.1f}", "text_y": f"{y + cell / 2 + 4:.1f}",
                     "cells": cells})
    return {**chart(width, height, "heat-map",
                     "Points per move of each row agent against each column agent"),
            "label": label, "cell": cell, "columns": columns, "rows": rows,
            "legend": _legend(label, top + cell * len(names) + 18, payoffs),
            "payoffs": payoffs}


def _legend(x0, y, payoffs) -> dict:
    low, high = payoffs["S"], payoffs["T"]
    width = 240

    def at(value):
        return x0 + width * (value - low) / (high - low) if high > low else x0

    return {"x": x0, "y": y, "width": width,
            "stops": [{"offset": f"{position:.2f}", "colour": f"rgb({r},{g},{b})"}
                      for position, (r, g, b) in _PALETTE],
            "marks": [{"letter": letter, "value": payoffs[letter],
                       "x": f"{at(payoffs[letter]):.1f}"} for letter in "SPRT"]}


_SERIES = (("cooperation_intended", "#7c93b0", "intended C"),
           ("cooperation_played", "#2f6db3", "played C"),
           ("mutual_cooperation", "#2a9d8f", "both played C"))


def _play(result, metrics) -> dict:
    names = [s.agent for s in result.standings]
    label = label_width(names)
    bar, row, top = 300, 42, 30
    width, height = label + bar + 90, top + row * len(names) + 6
    agents, rows = [], []
    for index, name in enumerate(names):
        tally = metrics.agents[name].as_dict()
        agents.append({
            "name": name, "y": top + row * index,
            "played": _percent(tally["cooperation_played"]),
            "bars": [{"width": f"{bar * (tally[key] or 0.0):.1f}", "colour": colour,
                      "text": text, "share": _percent(tally[key])}
                     for key, colour, text in _SERIES]})
        rows.append({
            "name": name, "moves": tally["moves"],
            "intended": _percent(tally["cooperation_intended"]),
            "played": _percent(tally["cooperation_played"]),
            "mutual": _percent(tally["mutual_cooperation"]),
            "points": _decimal(tally["points_per_move"]),
            "faults": [tally["faults"][kind] for kind in FAULT_KINDS]})
    return {**chart(width, height, "cooperation-chart",
                     "Cooperation rate of each agent, intended and played"),
            "label": label, "bar": bar, "agents": agents, "rows": rows,
            "series": [{"key_x": label + k * 120, "colour": colour, "text": text}
                       for k, (_key, colour, text) in enumerate(_SERIES)]}


def _replicates(summary) -> dict:
    count, agents = len(summary.runs), summary.agents
    size = len(agents)
    label = label_width([a.agent for a in agents])
    axis, row, top = 360, 26, 30
    hist = max(12 * size + 10, 80)  # its bars, or its caption
    width = label + axis + 90 + hist
    height = top + row * size + 8
    scale = (lambda rank: label + axis * (rank - 1) / (size - 1)) if size > 1 else \
        (lambda rank: label + axis / 2)
    hist_x = label + axis + 90
    shown = []
    for index, a in enumerate(agents):
        y = top + row * index + row / 2
        interval = None
        if a.interval:
            low, high = (min(max(v, 1), size) for v in a.interval)
            interval = (f"{scale(low):.1f}", f"{scale(high):.1f}")
        tallest = max(a.rank_counts) or 1
        bars = []
        for k, n in enumerate(a.rank_counts):
            h = (row - 8) * n / tallest
            bars.append({"x": hist_x + 12 * k, "y": f"{y + row / 2 - 4 - h:.1f}",
                         "height": f"{h:.1f}", "count": n})
        shown.append({"name": a.agent, "y": f"{y:.1f}", "text_y": f"{y + 4:.1f}",
                      "interval": interval, "mean_x": f"{scale(a.mean_rank):.1f}",
                      "mean": f"{a.mean_rank:.2f}", "wins": f"{a.win_share(count):.0%}",
                      "bars": bars})
    return {**chart(width, height, "replicates-chart",
                     "Mean rank over the replicates with its 95% interval"),
            "count": count, "size": size, "label": label, "axis": axis, "hist_x": hist_x,
            "axis_end": height - 4,
            "ticks": [{"rank": rank, "x": f"{scale(rank):.1f}"} for rank in range(1, size + 1)],
            "agents": shown}


def _faults(result, per_agent: int = 5) -> dict:
    listed: dict[str, list[dict]] = {}
    counts: dict[str, int] = {}
    for game_id, game in enumerate(result.games, 1):
        for side, name in (("a", game.a), ("b", game.b)):
            for turn, fault in game.faults(side):
                counts[name] = counts.get(name, 0) + 1
                if len(listed.setdefault(name, [])) < per_agent:
                    listed[name].append({"game": game_id, "round": game.round, "turn": turn,
                                         "kind": fault.kind, "message": fault.message})
    return {"troubled": [{"name": e.name, "status": e.status, "message": e.message or ""}
                         for e in result.entrants if e.status != Status.OK],
            "listed": [{"name": name, "count": counts[name], "faults": listed[name],
                        "more": counts[name] - len(listed[name])} for name in sorted(listed)]}


def _rounds(result) -> list[dict]:
    return [{"number": r.number, "game_length": r.game_length, "agents": len(r.scores),
             "dropped": ", ".join(r.dropped) or "nobody (all tied)",
             "lowest": min(r.scores.values()) if r.scores else "",
             "highest": max(r.scores.values()) if r.scores else ""}
            for r in result.rounds]


# -- small helpers ---------------------------------------------------------------------------
def chart(width, height, ident, label) -> dict:
    """What every chart's <svg> element needs (its size in whole pixels)."""
    return {"id": ident, "width": f"{width:.0f}", "height": f"{height:.0f}", "aria": label}


def label_width(names) -> int:
    return 16 + 7 * max([len(n) for n in names] + [6])


def _colour(fraction: float) -> str:
    fraction = min(1.0, max(0.0, fraction))
    for (p0, c0), (p1, c1) in zip(_PALETTE, _PALETTE[1:], strict=False):
        if fraction <= p1:
            t = (fraction - p0) / (p1 - p0)
            r, g, b = (round(a + (b - a) * t) for a, b in zip(c0, c1, strict=False))
            return f"rgb({r},{g},{b})"
    return "rgb(253,231,37)"


def _out_text(dropped_in, still_in: str = "winner") -> str:
    if dropped_in is None:
        return still_in
    return "did not play" if dropped_in == 0 else f"round {dropped_in}"


def _percent(share) -> str:
    return "–" if share is None else f"{share:.0%}"


def _decimal(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def param_text(value) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return "–" if value is None else str(value)
