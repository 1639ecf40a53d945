"""Comparing the conditions: per condition and agent type, over the replicates, the mean
score and mean rank of the type's copies, the share of moves they chose to cooperate, and
how often a copy won, each mean with its 95% interval (Student's t over replicates)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from harness.core.safe_text import line
from harness.store.replicate_summary import t95


@dataclass
class Stat:
    mean: float
    interval: tuple[float, float] | None     # 95%, None with one replicate

    def as_dict(self, digits: int) -> dict:
        return {"mean": round(self.mean, digits),
                "interval": [round(x, digits) for x in self.interval] if self.interval
                else None}


@dataclass
class TypeSummary:
    type: str
    agent: str
    count: int
    score: Stat            # a copy's tournament score, averaged over copies, then replicates
    rank: Stat
    cooperation: Stat      # share of its chosen moves that were C
    win_share: float       # replicates in which one of its copies ranked first


@dataclass
class ConditionSummary:
    name: str
    params: dict
    tournaments: int
    types: list[TypeSummary]


def stat(values: list[float]) -> Stat:
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if n < 2:
        return Stat(mean, None)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t95(n - 1) * sd / math.sqrt(n)
    return Stat(mean, (mean - half, mean + half))


def summarize(experiment, units) -> list[ConditionSummary]:
    from .record import params_of  # heavy (sqlite3): loaded only where used

    summaries = []
    for number, condition in enumerate(experiment.conditions, 1):
        mine = [unit for unit in units if unit.condition == number]
        types = [_type_summary(agent_type, mine) for agent_type in condition.types]
        types.sort(key=lambda t: (t.rank.mean, -t.score.mean, t.type))
        summaries.append(ConditionSummary(condition.name, params_of(condition), len(mine),
                                          types))
    return summaries


def _type_summary(agent_type, units) -> TypeSummary:
    scores, ranks, cooperation, wins = [], [], [], 0
    for unit in units:
        rows = [p for p in unit.placings if p[1] == agent_type.id]
        if not rows:
            continue
        scores.append(sum(p[3] for p in rows) / len(rows))
        ranks.append(sum(p[2] for p in rows) / len(rows))
        moves = sum(p[6] for p in rows)
        cooperation.append(sum(p[5] for p in rows) / moves if moves else 0.0)
        wins += any(p[2] == 1 for p in rows)
    return TypeSummary(agent_type.id, agent_type.agent, agent_type.count, stat(scores),
                       stat(ranks), stat(cooperation), wins / len(units) if units else 0.0)


def as_json(experiment, seed, summaries) -> dict:
    return {"seed": seed, "file": str(experiment.path.resolve()),   # as a resume gives it
            "replicates": experiment.replicates,
            "conditions": [{
                "name": c.name, "params": c.params, "tournaments": c.tournaments,
                "types": [{"type": t.type, "agent": t.agent, "count": t.count,
                           "mean_score": round(t.score.mean, 2),
                           "score_interval": t.score.as_dict(2)["interval"],
                           "mean_rank": round(t.rank.mean, 3),
                           "rank_interval": t.rank.as_dict(3)["interval"],
                           "cooperation": round(t.cooperation.mean, 4),
                           "cooperation_interval": t.cooperation.as_dict(4)["interval"],
                           "win_share": round(t.win_share, 4)} for t in c.types]}
                for c in summaries]}


def as_table(experiment, seed, summaries) -> str:
    """For a terminal: names from the file or the record escaped (safe_text.line)."""
    lines = [f"Experiment {line(experiment.path.name)}  seed {seed}  {experiment.replicates} "
             f"replicate{'s' * (experiment.replicates != 1)} per condition  "
             "(95% intervals over replicates)"]
    for c in summaries:
        names = {t.type: line(t.type) for t in c.types}
        width = max([len("type")] + [len(name) for name in names.values()])
        lines += ["", f"{line(c.name)}  ({_param_words(c.params)})",
                  f"  {'type':<{width}}  {'n':>3}  {'mean score':>10}  {'95% interval':>15}  "
                  f"{'mean rank':>9}  {'95% interval':>13}  {'coop':>5}  {'wins':>5}"]
        for t in c.types:
            lines.append(
                f"  {names[t.type]:<{width}}  {t.count:>3}  {t.score.mean:>10.1f}  "
                f"{_interval(t.score, 1):>15}  {t.rank.mean:>9.2f}  {_interval(t.rank, 2):>13}"
                f"  {t.cooperation.mean:>5.0%}  {t.win_share:>5.0%}")
    return "\n".join(lines)


def _interval(s: Stat, digits: int) -> str:
    return f"{s.interval[0]:.{digits}f}-{s.interval[1]:.{digits}f}" if s.interval else "-"


def _param_words(params: dict) -> str:
    words = [f"flip {params['flip'][0]:g} {params['flip'][1]:g}",
             f"length {params['length'][0]}-{params['length'][1]}",
             f"{params['moves_per_turn']} move{'s' * (params['moves_per_turn'] != 1)}/turn"]
    if "horizon" in params:
        words.append(params["horizon"] + (f" {params['stop_prob']:g}"
                                          if params.get("stop_prob") is not None else ""))
    return ", ".join(words)
