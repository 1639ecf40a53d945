"""`experiment --report FILE.html`: one self-contained page comparing the conditions.

Per condition, a table of the agent types (mean score and mean rank with 95% intervals,
cooperation, wins); across conditions, a chart of each type's mean score and one of its
cooperation, a bar per condition with its interval. Inline SVG and CSS, no script; names
from the file are escaped. Style and helpers are the tournament report's.
"""
from __future__ import annotations

from html import escape

from ..records.report import CSS, _label_width, _param_text, _svg_open

# one colour per condition (Okabe-Ito, readable by colour-blind readers)
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000")


def render(experiment, seed, summaries) -> str:
    title = experiment.title or f"Experiment {experiment.path.name}"
    tournaments = sum(c.tournaments for c in summaries)
    parts = [
        f"<header><h1>{escape(title)}</h1><p class=\"sub\" id=\"seed\">seed {seed} · "
        f"{len(summaries)} conditions × {experiment.replicates} replicates · {tournaments} "
        f"tournaments · {escape(experiment.path.name)}</p></header>",
        _chart(summaries, "scores", "Mean score by condition",
               lambda t: t.score, lambda v: f"{v:.0f}",
               "A copy's tournament score, averaged over the type's copies, then over the "
               "replicates; the line is the 95% interval over replicates."),
        _chart(summaries, "cooperation", "Cooperation by condition",
               lambda t: t.cooperation, lambda v: f"{v:.0%}",
               "Share of the moves the type's copies chose to cooperate (before flips).",
               top=1.0),
        *[_condition(number, c) for number, c in enumerate(summaries)],
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body><main>\n"
            + "\n".join(parts) + "\n</main></body></html>\n")


def write_report(path, experiment, seed, summaries) -> None:
    from ..errors import HarnessError

    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render(experiment, seed, summaries))
    except OSError as error:
        raise HarnessError(f"--report {path}: cannot write: {error.strerror}")


def _chart(summaries, ident, heading, stat_of, shown, note, top=None) -> str:
    types = sorted({t.type for c in summaries for t in c.types})
    label, axis, bar, gap = _label_width(types), 420, 12, 10
    per_type = bar * len(summaries) + gap
    height = 30 + per_type * len(types) + 24 * ((len(summaries) + 2) // 3)
    top = top or max([_high(stat_of(t)) for c in summaries for t in c.types] + [1e-9])
    width = label + axis + 70
    svg = [_svg_open(width, height, f"{ident}-chart", heading)]
    for number, c in enumerate(summaries):
        colour = COLOURS[number % len(COLOURS)]
        by_type = {t.type: t for t in c.types}
        for row, name in enumerate(types):
            t = by_type.get(name)
            if t is None:
                continue
            s = stat_of(t)
            y = 10 + row * per_type + number * bar
            w = axis * max(0.0, s.mean) / top
            svg.append(f"<rect x=\"{label}\" y=\"{y}\" width=\"{w:.1f}\" height=\"{bar - 2}\" "
                       f"fill=\"{colour}\"><title>{escape(name)}, {escape(c.name)}: "
                       f"{shown(s.mean)}</title></rect>")
            if s.interval:
                low, high = (label + axis * max(0.0, v) / top for v in s.interval)
                mid = y + (bar - 2) / 2
                svg.append(f"<line x1=\"{low:.1f}\" y1=\"{mid:.1f}\" x2=\"{high:.1f}\" "
                           f"y2=\"{mid:.1f}\" stroke=\"#1d232a\" stroke-width=\"1.5\"/>")
            svg.append(f"<text x=\"{label + w + 4:.1f}\" y=\"{y + bar - 3}\" class=\"muted\">"
                       f"{shown(s.mean)}</text>")
    for row, name in enumerate(types):
        y = 10 + row * per_type + bar * len(summaries) / 2 + 4
        svg.append(f"<text x=\"{label - 8}\" y=\"{y:.1f}\" text-anchor=\"end\">"
                   f"{escape(name)}</text>")
    legend_y = 20 + per_type * len(types)
    for number, c in enumerate(summaries):
        x = label + (number % 3) * 150
        y = legend_y + 24 * (number // 3)
        svg.append(f"<rect x=\"{x}\" y=\"{y}\" width=\"12\" height=\"12\" "
                   f"fill=\"{COLOURS[number % len(COLOURS)]}\"/><text x=\"{x + 18}\" "
                   f"y=\"{y + 11}\">{escape(c.name)}</text>")
    svg.append("</svg>")
    return (f"<section id=\"{ident}\"><h2>{escape(heading)}</h2><p class=\"note\">"
            f"{escape(note)}</p>" + "".join(svg) + "</section>")


def _high(s) -> float:
    return s.interval[1] if s.interval else s.mean


def _condition(number, c) -> str:
    rows = []
    for t in c.types:
        rows.append(
            f"<tr><td>{escape(t.type)}</td><td><code>{escape(t.agent)}</code></td>"
            f"<td class=\"n\">{t.count}</td><td class=\"n\">{t.score.mean:.1f}</td>"
            f"<td class=\"n\">{_range(t.score, 1)}</td><td class=\"n\">{t.rank.mean:.2f}</td>"
            f"<td class=\"n\">{_range(t.rank, 2)}</td>"
            f"<td class=\"n\">{t.cooperation.mean:.0%}</td>"
            f"<td class=\"n\">{t.win_share:.0%}</td></tr>")
    params = " · ".join(f"{escape(k)} {escape(_param_text(v))}" for k, v in c.params.items())
    return (f"<section id=\"condition-{number + 1}\"><h2>{escape(c.name)}</h2>"
            f"<p class=\"note\">{c.tournaments} tournaments · {params}</p>"
            "<table><thead><tr><th>type</th><th>agent</th><th class=\"n\">copies</th>"
            "<th class=\"n\">mean score</th><th class=\"n\">95% interval</th>"
            "<th class=\"n\">mean rank</th><th class=\"n\">95% interval</th>"
            "<th class=\"n\">cooperation</th><th class=\"n\">wins</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></section>")


def _range(s, digits) -> str:
    return f"{s.interval[0]:.{digits}f}–{s.interval[1]:.{digits}f}" if s.interval else "–"
