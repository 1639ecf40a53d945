"""The report's chart of an ecological tournament (`tournament --ecology`): each agent's
population share by generation, one line each, inline SVG (no script, no external host).
This gives the geometry; the report's template draws it, escaping every name."""
from __future__ import annotations

WIDTH, HEIGHT, LEFT, TOP, LEGEND_ROW = 640, 260, 44, 12, 16
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


def ecology_chart(ecology) -> dict:
    shares, agents = ecology.shares, ecology.agents
    steps = max(1, len(shares) - 1)
    legend = TOP + HEIGHT + 30
    series = []
    for index, name in enumerate(agents):
        points = " ".join(f"{LEFT + WIDTH * g / steps:.1f},{TOP + HEIGHT * (1 - row[index]):.1f}"
                          for g, row in enumerate(shares))
        y = legend + LEGEND_ROW * index
        series.append({"name": name, "colour": PALETTE[index % len(PALETTE)],
                       "points": points, "final": f"{shares[-1][index]:.1%}",
                       "key_y": y - 9, "text_y": y})
    return {"width": WIDTH + LEFT + 20, "height": legend + LEGEND_ROW * len(agents) + 8,
            "frame": {"x": LEFT, "y": TOP, "width": WIDTH, "height": HEIGHT},
            "ticks": [{"x": LEFT - 6, "y": f"{TOP + HEIGHT * (1 - tick) + 4:.1f}",
                       "label": f"{tick:.0%}"} for tick in (0.0, 0.25, 0.5, 0.75, 1.0)],
            "axis": {"x": LEFT + WIDTH / 2, "y": TOP + HEIGHT + 18, "steps": steps},
            "key_x": LEFT, "label_x": LEFT + 16, "series": series}
