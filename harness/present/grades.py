"""Grades: one CSV row per agent for an LMS gradebook import - the tournament's CSV columns
(rank, score, dropped_in, faults by kind, status, ...) and then, when known, the team's
members (from --roster), how the agent played, and its replicate figures."""
from __future__ import annotations

from harness.core.errors import HarnessError
from harness.store.metrics import of_result

from .csv_table import CSV_COLUMNS, csv_rows, write_csv


def grade_rows(result, roster=None) -> tuple[list[str], list[dict]]:
    columns = list(CSV_COLUMNS)
    rows = csv_rows(result)
    if roster is not None:
        columns.append("members")
        for row in rows:
            row["members"] = "; ".join(roster.members(row["agent"]) or [])
    tallies = of_result(result).agents
    columns += ["cooperation_played", "points_per_move"]
    for row in rows:
        played = tallies[row["agent"]].as_dict()
        row["cooperation_played"] = _number(played["cooperation_played"])
        row["points_per_move"] = _number(played["points_per_move"])
    replicates = getattr(result, "replicates", None)
    if replicates is not None:
        columns += ["replicates_mean_rank", "replicates_rank_low", "replicates_rank_high",
                    "replicates_win_share"]
        count = len(replicates.runs)
        by_agent = {a.agent: a for a in replicates.agents}
        for row in rows:
            summary = by_agent.get(row["agent"])
            low, high = (summary.interval if summary and summary.interval else ("", ""))
            row.update(replicates_mean_rank=_number(summary and summary.mean_rank),
                       replicates_rank_low=_number(low), replicates_rank_high=_number(high),
                       replicates_win_share=_number(summary and summary.win_share(count)))
    return columns, rows


def _number(value) -> str:
    return "" if value is None or value == "" else f"{value:.4f}".rstrip("0").rstrip(".")


def as_grades_csv(result, roster=None, provisional: bool = False) -> str:
    """The grades CSV; `provisional` (from an unfinished record) adds a `provisional`
    column saying so on every row."""
    columns, rows = grade_rows(result, roster)
    if provisional:
        columns.append("provisional")
        for row in rows:
            row["provisional"] = "yes"
    return write_csv(columns, rows)


def write_grades(path, result, roster=None, provisional: bool = False) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(as_grades_csv(result, roster, provisional))
    except OSError as error:
        raise HarnessError(f"--grades {path}: cannot write: {error.strerror}") from error
