"""`--report FILE.html`: one self-contained page about a tournament, made for people.

Standings, who was dropped in which round, a head-to-head heat map, how each agent played
(cooperation, faults), replicates when there are any, the rounds, the parameters and seed.
Charts are inline SVG and style is inline CSS: the file opens offline, has no script, and
everything that came from an agent (names, fault messages, output) is escaped.
"""
from __future__ import annotations

from html import escape

from ..handles.base import FAULT_KINDS

# viridis, from few points per move to many
_PALETTE = ((0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)),
            (0.75, (94, 201, 98)), (1.0, (253, 231, 37)))

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
 color:#1d232a;background:#f6f7f9;margin:0}
main{max-width:1120px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:0 0 10px}
.sub{color:#566270;margin:0 0 18px}
section{background:#fff;border:1px solid #e1e5ea;border-radius:8px;padding:16px 20px;
 margin:0 0 18px}
table{border-collapse:collapse;font-size:14px}
th,td{padding:4px 10px;text-align:left;border-bottom:1px solid #edf0f3;vertical-align:top}
th{color:#566270;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.winner td{font-weight:600}
.status-ok{color:#2a7a3a}.status-load-error,.status-crashed,.status-disqualified{color:#b3261e}
.note{color:#566270;font-size:13px;margin:6px 0 0}
.callout{background:#fff7e0;border:1px solid #f0d58a;border-radius:6px;padding:8px 12px}
svg text{font-family:inherit;font-size:12px;fill:#1d232a}
svg .axis{stroke:#c5ccd4}svg .muted{fill:#566270}
code{background:#eef1f4;border-radius:4px;padding:1px 5px;font-size:13px}
.faults li{margin:2px 0}.msg{font-family:ui-monospace,monospace;font-size:13px}
"""


def render(result, metrics=None, title: str | None = None, command: str | None = None,
           incomplete: str | None = None) -> str:
    from ..formats import params_dict
    from .metrics import of_result

    metrics = metrics or of_result(result)
    params = params_dict(result.settings)
    title = title or f"Levinson tournament, seed {result.seed}"
    replicates = getattr(result, "replicates", None)
    parts = [
        _header(result, title, incomplete),
        _standings(result, metrics, incomplete),
        _elimination(result, incomplete),
        _heat_map(result, metrics, params),
        _play(result, metrics),
        _replicates(replicates) if replicates else "",
        _faults(result),
        _rounds(result),
        _parameters(result, params, command),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body><main>\n"
            + "\n".join(part for part in parts if part) + "\n</main></body></html>\n")


def write_report(path, result, **options) -> None:
    from ..errors import HarnessError

    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render(result, **options))
    except OSError as error:
        raise HarnessError(f"--report {path}: cannot write: {error.strerror}")


# -- sections --------------------------------------------------------------------------------
def _header(result, title, incomplete) -> str:
    winners = [s.agent for s in result.standings if s.dropped_in is None]
    played = [e for e in result.entrants]
    line = (f"seed {result.seed} · {len(played)} agents · {len(result.rounds)} rounds · "
            f"{len(result.games)} games")
    if incomplete:
        headline = f"<p class=\"callout\">{escape(incomplete)}</p>"
    elif len(winners) == 1:
        headline = f"<p><strong>Winner: {escape(winners[0])}</strong></p>"
    elif winners:
        headline = (f"<p><strong>Co-winners (all tied): "
                    f"{escape(', '.join(winners))}</strong></p>")
    else:
        headline = ""
    return (f"<header><h1>{escape(title)}</h1><p class=\"sub\" id=\"seed\">{line}</p>"
            f"{headline}</header>")


def _standings(result, metrics, incomplete=None) -> str:
    entrants = {e.name: e for e in result.entrants}
    rows = []
    for s in result.standings:
        entrant, tally = entrants[s.agent], metrics.agents[s.agent].as_dict()
        faults = ", ".join(f"{n} {kind}" for kind, n in s.faults.items() if n) or "–"
        css = " class=\"winner\"" if s.dropped_in is None else ""
        rows.append(
            f"<tr{css}><td class=\"n\">{s.rank}</td><td>{escape(s.agent)}</td>"
            f"<td>{escape(entrant.spec.language)}</td><td class=\"n\">{s.score}</td>"
            f"<td>{escape(_out_text(s.dropped_in, incomplete))}</td>"
            f"<td class=\"n\">{_percent(tally['cooperation_played'])}</td>"
            f"<td class=\"n\">{_decimal(tally['points_per_move'])}</td><td>{faults}</td>"
            f"<td class=\"status-{escape(entrant.status)}\">{escape(entrant.status)}</td></tr>")
    return ("<section id=\"standings\"><h2>Standings</h2><table><thead><tr>"
            "<th class=\"n\">rank</th><th>agent</th><th>language</th><th class=\"n\">score</th>"
            "<th>out</th><th class=\"n\">cooperation</th><th class=\"n\">points/move</th>"
            "<th>faults</th><th>status</th></tr></thead><tbody>" + "".join(rows) +
            "</tbody></table><p class=\"note\">Ranked by the round an agent was dropped in "
            "(last standing first), then that round's score; score is the total over every "
            "round played. Cooperation: share of its moves played as C (after flips).</p>"
            "</section>")


def _elimination(result, incomplete=None) -> str:
    rounds = len(result.rounds)
    if not rounds:
        return ""
    names = [s.agent for s in result.standings]
    label = _label_width(names)
    step = max(28, min(90, 640 // rounds))
    row, top = 24, 26
    width = label + step * rounds + 170
    height = top + row * len(names) + 8
    svg = [_svg_open(width, height, "elimination-chart",
                     "Rounds each agent played; the bar ends in the round it was dropped")]
    for number in range(1, rounds + 1):
        x = label + step * (number - 1)
        svg.append(f"<text x=\"{x + step / 2:.1f}\" y=\"16\" text-anchor=\"middle\" "
                   f"class=\"muted\">{'R' if rounds > 12 else 'round '}{number}</text>")
        svg.append(f"<line class=\"axis\" x1=\"{x}\" y1=\"20\" x2=\"{x}\" y2=\"{height - 4}\"/>")
    scores = {name: [r.scores.get(name) for r in result.rounds] for name in names}
    for index, standing in enumerate(result.standings):
        y = top + row * index
        out = standing.dropped_in
        last = rounds if out is None else out
        svg.append(f"<text x=\"{label - 8}\" y=\"{y + 15}\" text-anchor=\"end\">"
                   f"{escape(standing.agent)}</text>")
        if last == 0:
            svg.append(f"<text x=\"{label + 4}\" y=\"{y + 15}\" class=\"muted\">"
                       "did not play</text>")
            continue
        colour = "#e0a800" if out is None else "#7c93b0"
        played = [s for s in scores[standing.agent][:last] if s is not None]
        tip = f"{standing.agent}: round scores {', '.join(map(str, played))}"
        svg.append(f"<rect x=\"{label}\" y=\"{y + 4}\" width=\"{step * last - 4}\" "
                   f"height=\"{row - 8}\" rx=\"3\" fill=\"{colour}\">"
                   f"<title>{escape(tip)}</title></rect>")
        note = (("still in" if incomplete else "winner") if out is None
                else f"dropped in round {out}")
        svg.append(f"<text x=\"{label + step * last + 4}\" y=\"{y + 15}\" "
                   f"class=\"muted\">{note}</text>")
    svg.append("</svg>")
    return ("<section id=\"elimination\"><h2>Who was dropped in which round</h2>"
            + "".join(svg) + "<p class=\"note\">Each bar spans the rounds an agent played; "
            "after each round the lowest round score is dropped (all of them on a tie).</p>"
            "</section>")


def _heat_map(result, metrics, params) -> str:
    names = [s.agent for s in result.standings]
    if len(names) < 2:
        return ""
    table = metrics.head_to_head()
    payoffs = params["payoffs"]
    low, high = payoffs["S"], payoffs["T"]
    cell = max(18, min(46, 620 // len(names)))
    label = _label_width(names)
    slant = 0.72 * (label - 16) + 6        # a column name, written at 45 degrees
    top = slant + 10
    width = max(label + cell * (len(names) - 0.5) + slant + 6, label + 270)
    height = top + cell * len(names) + 64
    svg = [_svg_open(width, height, "heat-map",
                     "Points per move of each row agent against each column agent")]
    for j, name in enumerate(names):
        x = label + cell * j + cell / 2
        svg.append(f"<text transform=\"translate({x:.1f},{top - 6:.1f}) rotate(-45)\">"
                   f"{escape(name)}</text>")
    show_numbers = cell >= 30
    for i, me in enumerate(names):
        y = top + cell * i
        svg.append(f"<text x=\"{label - 8}\" y=\"{y + cell / 2 + 4:.1f}\" "
                   f"text-anchor=\"end\">{escape(me)}</text>")
        for j, them in enumerate(names):
            x = label + cell * j
            value = table.get(me, {}).get(them)
            if me == them or value is None:
                fill, text = "#eef1f4", ""
                tip = "itself" if me == them else f"{me} never played {them}"
            else:
                fill = _colour((value - low) / (high - low) if high > low else 0.5)
                text = f"{value:.1f}" if show_numbers else ""
                tip = f"{me} vs {them}: {value:.2f} points per move"
            svg.append(f"<rect class=\"cell\" x=\"{x}\" y=\"{y:.1f}\" width=\"{cell - 1}\" "
                       f"height=\"{cell - 1}\" fill=\"{fill}\"><title>{escape(tip)}</title>"
                       "</rect>")
            if text:
                ink = "#1d232a" if (value - low) / max(1, high - low) > 0.55 else "#ffffff"
                svg.append(f"<text x=\"{x + cell / 2 - 0.5:.1f}\" y=\"{y + cell / 2 + 4:.1f}\" "
                           f"text-anchor=\"middle\" style=\"fill:{ink};font-size:11px\">"
                           f"{text}</text>")
    svg.append(_legend(label, top + cell * len(names) + 18, payoffs))
    svg.append("</svg>")
    return ("<section id=\"head-to-head\"><h2>Head to head</h2>" + "".join(svg) +
            "<p class=\"note\">Row agent's points per move against the column agent, over all "
            f"their games (mutual cooperation gives {payoffs['R']}, mutual defection "
            f"{payoffs['P']}).</p></section>")


def _legend(x0, y, payoffs) -> str:
    low, high = payoffs["S"], payoffs["T"]
    width, stops = 240, []
    for position, (r, g, b) in _PALETTE:
        stops.append(f"<stop offset=\"{position:.2f}\" stop-color=\"rgb({r},{g},{b})\"/>")
    parts = ["<defs><linearGradient id=\"scale\">" + "".join(stops) + "</linearGradient></defs>",
             f"<rect x=\"{x0}\" y=\"{y}\" width=\"{width}\" height=\"10\" fill=\"url(#scale)\"/>"]
    for letter in "SPRT":
        value = payoffs[letter]
        x = x0 + width * (value - low) / (high - low) if high > low else x0
        parts.append(f"<text x=\"{x:.1f}\" y=\"{y + 24}\" text-anchor=\"middle\" "
                     f"class=\"muted\">{letter}={value}</text>")
    return "".join(parts)


def _play(result, metrics) -> str:
    names = [s.agent for s in result.standings]
    label = _label_width(names)
    bar, row, top = 300, 42, 30
    width, height = label + bar + 90, top + row * len(names) + 6
    series = (("cooperation_intended", "#7c93b0", "intended C"),
              ("cooperation_played", "#2f6db3", "played C"),
              ("mutual_cooperation", "#2a9d8f", "both played C"))
    svg = [_svg_open(width, height, "cooperation-chart",
                     "Cooperation rate of each agent, intended and played")]
    for k, (_key, colour, text) in enumerate(series):
        x = label + k * 120
        svg.append(f"<rect x=\"{x}\" y=\"6\" width=\"10\" height=\"10\" fill=\"{colour}\"/>"
                   f"<text x=\"{x + 14}\" y=\"15\">{text}</text>")
    for index, name in enumerate(names):
        y = top + row * index
        tally = metrics.agents[name].as_dict()
        svg.append(f"<text x=\"{label - 8}\" y=\"{y + 20}\" text-anchor=\"end\">"
                   f"{escape(name)}</text>")
        for k, (key, colour, text) in enumerate(series):
            share = tally[key] or 0.0
            svg.append(f"<rect x=\"{label}\" y=\"{y + 3 + k * 12}\" width=\"{bar * share:.1f}\" "
                       f"height=\"10\" fill=\"{colour}\"><title>{escape(name)}: {text} "
                       f"{_percent(tally[key])}</title></rect>")
        svg.append(f"<text x=\"{label + bar + 8}\" y=\"{y + 20}\" class=\"muted\">"
                   f"{_percent(tally['cooperation_played'])}</text>")
    svg.append("</svg>")
    rows = []
    for name in names:
        tally = metrics.agents[name].as_dict()
        faults = "".join(f"<td class=\"n\">{tally['faults'][k]}</td>" for k in FAULT_KINDS)
        rows.append(f"<tr><td>{escape(name)}</td><td class=\"n\">{tally['moves']}</td>"
                    f"<td class=\"n\">{_percent(tally['cooperation_intended'])}</td>"
                    f"<td class=\"n\">{_percent(tally['cooperation_played'])}</td>"
                    f"<td class=\"n\">{_percent(tally['mutual_cooperation'])}</td>"
                    f"<td class=\"n\">{_decimal(tally['points_per_move'])}</td>{faults}</tr>")
    head = "".join(f"<th class=\"n\">{k}</th>" for k in FAULT_KINDS)
    return ("<section id=\"play\"><h2>How each agent played</h2>" + "".join(svg) +
            "<table id=\"metrics\"><thead><tr><th>agent</th><th class=\"n\">moves</th>"
            "<th class=\"n\">intended C</th><th class=\"n\">played C</th>"
            "<th class=\"n\">both C</th><th class=\"n\">points/move</th>" + head +
            "</tr></thead><tbody>" + "".join(rows) + "</tbody></table><p class=\"note\">"
            "Intended: what the agent answered; played: after noise flipped some moves. "
            "Faults are counted per turn (the turn is then played as the default answer)."
            "</p></section>")


def _replicates(summary) -> str:
    count, agents = len(summary.runs), summary.agents
    size = len(agents)
    names = [a.agent for a in agents]
    label = _label_width(names)
    axis, row, top = 360, 26, 30
    hist = max(12 * size + 10, 80)  # its bars, or its caption
    width = label + axis + 90 + hist
    height = top + row * size + 8
    scale = (lambda rank: label + axis * (rank - 1) / (size - 1)) if size > 1 else \
        (lambda rank: label + axis / 2)
    svg = [_svg_open(width, height, "replicates-chart",
                     "Mean rank over the replicates with its 95% interval")]
    for rank in range(1, size + 1):
        x = scale(rank)
        svg.append(f"<line class=\"axis\" x1=\"{x:.1f}\" y1=\"20\" x2=\"{x:.1f}\" "
                   f"y2=\"{height - 4}\"/><text x=\"{x:.1f}\" y=\"14\" text-anchor=\"middle\" "
                   f"class=\"muted\">{rank}</text>")
    hist_x = label + axis + 90
    svg.append(f"<text x=\"{hist_x}\" y=\"14\" class=\"muted\">ranks 1..{size}</text>")
    for index, a in enumerate(agents):
        y = top + row * index + row / 2
        svg.append(f"<text x=\"{label - 8}\" y=\"{y + 4:.1f}\" text-anchor=\"end\">"
                   f"{escape(a.agent)}</text>")
        if a.interval:
            low, high = (min(max(v, 1), size) for v in a.interval)
            svg.append(f"<line x1=\"{scale(low):.1f}\" y1=\"{y:.1f}\" x2=\"{scale(high):.1f}\" "
                       f"y2=\"{y:.1f}\" stroke=\"#2f6db3\" stroke-width=\"3\"/>")
        svg.append(f"<circle class=\"mean-rank\" cx=\"{scale(a.mean_rank):.1f}\" cy=\"{y:.1f}\" "
                   f"r=\"5\" fill=\"#1d3f73\"><title>{escape(a.agent)}: mean rank "
                   f"{a.mean_rank:.2f}</title></circle>")
        svg.append(f"<text x=\"{label + axis + 10}\" y=\"{y + 4:.1f}\" class=\"muted\">"
                   f"wins {a.win_share(count):.0%}</text>")
        tallest = max(a.rank_counts) or 1
        for k, n in enumerate(a.rank_counts):
            h = (row - 8) * n / tallest
            svg.append(f"<rect x=\"{hist_x + 12 * k}\" y=\"{y + row / 2 - 4 - h:.1f}\" "
                       f"width=\"10\" height=\"{h:.1f}\" fill=\"#7c93b0\"><title>"
                       f"rank {k + 1}: {n} of {count}</title></rect>")
    svg.append("</svg>")
    return (f"<section id=\"replicates\"><h2>Replicates: how much was luck</h2>"
            f"<p class=\"note\">The same tournament {count} more times, with seeds derived "
            "from this run's seed. Dot: mean rank; line: its 95% interval; bars: how often "
            "each rank came out.</p>" + "".join(svg) + "</section>")


def _faults(result, per_agent: int = 5) -> str:
    by_agent: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    for game_id, game in enumerate(result.games, 1):
        for side, name in (("a", game.a), ("b", game.b)):
            for turn, fault in game.faults(side):
                counts[name] = counts.get(name, 0) + 1
                if len(by_agent.setdefault(name, [])) < per_agent:
                    by_agent[name].append(
                        f"<li>game {game_id} (round {game.round}, turn {turn}): "
                        f"{escape(fault.kind)} <span class=\"msg\">{escape(fault.message)}"
                        "</span></li>")
    troubled = [e for e in result.entrants if e.status != "ok"]
    if not counts and not troubled:
        return ("<section id=\"faults\"><h2>Faults</h2><p>No faults: every answer was valid "
                "and in time.</p></section>")
    parts = ["<section id=\"faults\"><h2>Faults</h2>"]
    for entrant in troubled:
        parts.append(f"<p><strong>{escape(entrant.name)}</strong>: "
                     f"<span class=\"status-{escape(entrant.status)}\">"
                     f"{escape(entrant.status)}</span> "
                     f"<span class=\"msg\">{escape(entrant.message or '')}</span></p>")
    for name in sorted(by_agent):
        more = counts[name] - len(by_agent[name])
        parts.append(f"<p><strong>{escape(name)}</strong>: {counts[name]} faults</p>"
                     f"<ul class=\"faults\">{''.join(by_agent[name])}"
                     + (f"<li>… and {more} more</li>" if more else "") + "</ul>")
    parts.append("<p class=\"note\">Every fault and move is in the record: "
                 "<code>pdharness show RUN.sqlite --game ID</code>.</p></section>")
    return "".join(parts)


def _rounds(result) -> str:
    rows = "".join(
        f"<tr><td class=\"n\">{r.number}</td><td class=\"n\">{r.game_length}</td>"
        f"<td class=\"n\">{len(r.scores)}</td>"
        f"<td>{escape(', '.join(r.dropped) or 'nobody (all tied)')}</td>"
        f"<td class=\"n\">{min(r.scores.values()) if r.scores else ''}</td>"
        f"<td class=\"n\">{max(r.scores.values()) if r.scores else ''}</td></tr>"
        for r in result.rounds)
    return ("<section id=\"rounds\"><h2>Rounds</h2><table><thead><tr><th class=\"n\">round</th>"
            "<th class=\"n\">turns per game</th><th class=\"n\">agents</th><th>dropped</th>"
            "<th class=\"n\">lowest score</th><th class=\"n\">highest score</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></section>")


def _parameters(result, params, command) -> str:
    shown = dict(seed=result.seed, **params)
    rows = "".join(f"<tr><th>{escape(key)}</th><td>{escape(_param_text(value))}</td></tr>"
                   for key, value in shown.items())
    again = (f"<p class=\"note\">Command: <code>{escape(command)}</code></p>" if command
             else "")
    return ("<section id=\"parameters\"><h2>Parameters and seed</h2><table>" + rows +
            "</table><p class=\"note\">The same seed, agents and parameters give the same "
            "result on any machine, with any number of jobs.</p>" + again + "</section>")


# -- small helpers ---------------------------------------------------------------------------
def _svg_open(width, height, ident, label) -> str:
    return (f"<svg id=\"{ident}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0f}\" "
            f"height=\"{height:.0f}\" viewBox=\"0 0 {width:.0f} {height:.0f}\" role=\"img\" "
            f"aria-label=\"{escape(label)}\">")


def _label_width(names) -> int:
    return 16 + 7 * max([len(n) for n in names] + [6])


def _colour(fraction: float) -> str:
    fraction = min(1.0, max(0.0, fraction))
    for (p0, c0), (p1, c1) in zip(_PALETTE, _PALETTE[1:]):
        if fraction <= p1:
            t = (fraction - p0) / (p1 - p0)
            r, g, b = (round(a + (b - a) * t) for a, b in zip(c0, c1))
            return f"rgb({r},{g},{b})"
    return "rgb(253,231,37)"


def _out_text(dropped_in, incomplete=None) -> str:
    if dropped_in is None:
        return "still in" if incomplete else "winner"
    return "did not play" if dropped_in == 0 else f"round {dropped_in}"


def _percent(share) -> str:
    return "–" if share is None else f"{share:.0%}"


def _decimal(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def _param_text(value) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return "–" if value is None else str(value)
