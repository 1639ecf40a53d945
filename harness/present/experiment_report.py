"""`experiment --report FILE.html`: one self-contained page comparing the conditions.

Per condition, a table of the agent types (mean score and mean rank with 95% intervals,
cooperation, wins); across conditions, a chart of each type's mean score and one of its
cooperation, a bar per condition with its interval. Inline SVG and CSS, no script. This
module works out what the page shows; the markup is templates/experiment.html, rendered
with autoescaping like the tournament report, whose page and helpers it shares.
"""
from __future__ import annotations

from harness.core.counts import counted
from harness.core.errors import HarnessError

from .tournament_report import chart, label_width, param_text, template

# one colour per condition (Okabe-Ito, readable by colour-blind readers)
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000")


def render(experiment, seed, summaries) -> str:
    return template("experiment.html").render(
        title=experiment.title or f"Experiment {experiment.path.name}",
        line=(f"seed {seed} · {counted(len(summaries), 'condition')} × "
              f"{counted(experiment.replicates, 'replicate')} · "
              f"{counted(sum(c.tournaments for c in summaries), 'tournament')} · "
              f"{experiment.path.name}"),
        charts=[
            _chart(summaries, "scores", "Mean score by condition",
                   lambda t: t.score, lambda v: f"{v:.0f}",
                   "A copy's tournament score, averaged over the type's copies, then over "
                   "the replicates; the line is the 95% interval over replicates."),
            _chart(summaries, "cooperation", "Cooperation by condition",
                   lambda t: t.cooperation, lambda v: f"{v:.0%}",
                   "Share of the moves the type's copies chose to cooperate (before flips).",
                   top=1.0)],
        conditions=[_condition(c) for c in summaries])


def write_report(path, experiment, seed, summaries) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render(experiment, seed, summaries))
    except OSError as error:
        raise HarnessError(f"--report {path}: cannot write: {error.strerror}") from error


def _chart(summaries, ident, heading, stat_of, shown, note, top=None) -> dict:
    types = sorted({t.type for c in summaries for t in c.types})
    label, axis, bar, gap = label_width(types), 420, 12, 10
    per_type = bar * len(summaries) + gap
    height = 30 + per_type * len(types) + 24 * ((len(summaries) + 2) // 3)
    top = top or max([_high(stat_of(t)) for c in summaries for t in c.types] + [1e-9])
    width = label + axis + 70
    bars = []
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
            interval, end = None, label + w
            if s.interval:
                low, high = (label + axis * max(0.0, v) / top for v in s.interval)
                mid = f"{y + (bar - 2) / 2:.1f}"
                interval = {"low": f"{low:.1f}", "high": f"{high:.1f}", "y": mid}
                end = max(end, high)      # the value's label clears the interval line
            bars.append({"y": y, "width": f"{w:.1f}", "colour": colour,
                         "tip": f"{name}, {c.name}: {shown(s.mean)}", "interval": interval,
                         "value_x": f"{end + 4:.1f}", "value_y": y + bar - 3,
                         "value": shown(s.mean)})
    legend_y = 20 + per_type * len(types)
    return {**chart(width, height, f"{ident}-chart", heading), "ident": ident,
            "heading": heading, "note": note, "label": label, "bar_height": bar - 2,
            "bars": bars,
            "names": [{"name": name,
                       "y": f"{10 + row * per_type + bar * len(summaries) / 2 + 4:.1f}"}
                      for row, name in enumerate(types)],
            "legend": [{"x": label + (number % 3) * 150,
                        "y": legend_y + 24 * (number // 3),
                        "colour": COLOURS[number % len(COLOURS)], "name": c.name}
                       for number, c in enumerate(summaries)]}


def _high(s) -> float:
    return s.interval[1] if s.interval else s.mean


def _condition(c) -> dict:
    return {"name": c.name, "tournaments": c.tournaments,
            "params": " · ".join(f"{k} {param_text(v)}" for k, v in c.params.items()),
            "types": [{"type": t.type, "agent": t.agent, "count": t.count,
                       "score": f"{t.score.mean:.1f}", "score_range": _range(t.score, 1),
                       "rank": f"{t.rank.mean:.2f}", "rank_range": _range(t.rank, 2),
                       "cooperation": f"{t.cooperation.mean:.0%}",
                       "wins": f"{t.win_share:.0%}"} for t in c.types]}


def _range(s, digits) -> str:
    return f"{s.interval[0]:.{digits}f}–{s.interval[1]:.{digits}f}" if s.interval else "–"
