"""The report's chart of an ecological tournament (`tournament --ecology`): each agent's
population share by generation, one line each, inline SVG (no script, no external host).
Names are escaped here: the chart is handed to the template as markup."""
from __future__ import annotations

from html import escape

WIDTH, HEIGHT, LEFT, TOP, LEGEND_ROW = 640, 260, 44, 12, 16
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


def ecology_chart(ecology) -> str:
    shares, agents = ecology.shares, ecology.agents
    steps = max(1, len(shares) - 1)
    legend = TOP + HEIGHT + 30
    total = legend + LEGEND_ROW * len(agents) + 8
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH + LEFT + 20}" '
             f'height="{total}" role="img" aria-label="population shares by generation">',
             f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH}" height="{HEIGHT}" fill="none" '
             'stroke="#999"/>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = TOP + HEIGHT * (1 - tick)
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
                     f'font-size="11">{tick:.0%}</text>')
    parts.append(f'<text x="{LEFT + WIDTH / 2}" y="{TOP + HEIGHT + 18}" text-anchor="middle" '
                 f'font-size="11">generation (0 to {steps})</text>')
    for index, name in enumerate(agents):
        colour = PALETTE[index % len(PALETTE)]
        points = " ".join(f"{LEFT + WIDTH * g / steps:.1f},{TOP + HEIGHT * (1 - row[index]):.1f}"
                          for g, row in enumerate(shares))
        label = escape(name)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{points}"><title>{label}</title></polyline>')
        y = legend + LEGEND_ROW * index
        parts.append(f'<rect x="{LEFT}" y="{y - 9}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{LEFT + 16}" y="{y}" font-size="12">{label} '
                     f'{shares[-1][index]:.1%}</text>')
    parts.append("</svg>")
    return "".join(parts)
