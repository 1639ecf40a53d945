"""What `--replicates N` found: per agent, over the replicates, the mean score and rank with
95% intervals (Student's t), from the runs as played or as the record keeps them
(harness/run/replicates.py plays them)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from harness.core.safe_text import line

# Student's t, two-sided 95%, by degrees of freedom (1..30); beyond, a series in 1/df.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t95(df: int) -> float:
    if df <= len(_T95):
        return _T95[df - 1]
    z = 1.959964  # Cornish-Fisher expansion of t around the normal quantile
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


@dataclass(frozen=True)
class Placing:
    agent: str
    rank: int
    score: int
    dropped_in: int | None


@dataclass
class ReplicateRun:
    number: int
    seed: int
    standings: list[Placing]


@dataclass
class AgentSummary:
    agent: str
    mean_rank: float
    interval: tuple[float, float] | None   # 95% confidence interval of the mean rank
    wins: int                               # replicates it won (co-winners each count)
    rank_counts: list[int]                  # [times ranked 1, times ranked 2, ...]
    mean_score: float

    def win_share(self, runs: int) -> float:
        return self.wins / runs if runs else 0.0


@dataclass
class Summary:
    runs: list[ReplicateRun]
    agents: list[AgentSummary] = field(default_factory=list)

    def as_dict(self) -> dict:
        count = len(self.runs)
        return {"count": count, "seeds": [run.seed for run in self.runs],
                "agents": [{"agent": a.agent, "mean_rank": round(a.mean_rank, 4),
                            "rank_interval": ([round(x, 4) for x in a.interval]
                                              if a.interval else None),
                            "win_share": round(a.win_share(count), 4), "wins": a.wins,
                            "rank_counts": a.rank_counts,
                            "mean_score": round(a.mean_score, 2)} for a in self.agents]}

    def as_table(self) -> str:
        count = len(self.runs)
        names = {a.agent: line(a.agent) for a in self.agents}
        width = max([len("agent")] + [len(name) for name in names.values()])
        lines = [f"Replicates: {count} more tournaments with seeds derived from the seed "
                 "(95% interval of the mean rank)",
                 f"  {'agent':<{width}}  {'mean rank':>9}  {'95% interval':>13}  "
                 f"{'wins':>6}  ranks 1..{len(self.agents)}"]
        for a in self.agents:
            interval = f"{a.interval[0]:.2f}-{a.interval[1]:.2f}" if a.interval else "-"
            counts = " ".join(str(n) for n in a.rank_counts)
            lines.append(f"  {names[a.agent]:<{width}}  {a.mean_rank:>9.2f}  {interval:>13}  "
                         f"{a.win_share(count):>6.0%}  {counts}")
        return "\n".join(lines)


def summarize(runs: list[ReplicateRun]) -> Summary:
    names = sorted({p.agent for run in runs for p in run.standings})
    size = len(names)
    agents = []
    for name in names:
        placings = [p for run in runs for p in run.standings if p.agent == name]
        ranks = [p.rank for p in placings]
        counts = [0] * size
        for r in ranks:
            counts[r - 1] += 1
        mean = sum(ranks) / len(ranks)
        agents.append(AgentSummary(name, mean, _interval(ranks, mean),
                                   sum(1 for r in ranks if r == 1), counts,
                                   sum(p.score for p in placings) / len(placings)))
    agents.sort(key=lambda a: (a.mean_rank, -a.wins, a.agent))
    return Summary(runs, agents)


def _interval(values, mean) -> tuple[float, float] | None:
    n = len(values)
    if n < 2:
        return None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t95(n - 1) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def summary_from_rows(rows) -> Summary:
    """From the record's `replicate` table."""
    runs: dict[int, ReplicateRun] = {}
    for row in rows:
        run = runs.setdefault(row["replicate"], ReplicateRun(row["replicate"], row["seed"], []))
        run.standings.append(Placing(row["agent"], row["rank"], row["score"],
                                     row["dropped_in"]))
    return summarize([runs[k] for k in sorted(runs)])
