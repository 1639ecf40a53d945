"""Every CSV pdharness writes, and the tournament's standings as CSV rows: below the
formats (`--format csv`) and the grades and gradebook files that extend them."""
from __future__ import annotations

import csv
import io

from harness.core.safe_text import csv_cell
from harness.core.verdicts import FAULT_KINDS

CSV_COLUMNS = ["rank", "agent", "score", "dropped_in", *(f"faults_{k}" for k in FAULT_KINDS),
               "status", "language", "source", "message"]


def csv_rows(result) -> list[dict]:
    entrants = {e.name: e for e in result.entrants}
    rows = []
    for s in result.standings:
        entrant = entrants[s.agent]
        row = {"rank": s.rank, "agent": s.agent, "score": s.score,
               "dropped_in": "" if s.dropped_in is None else s.dropped_in,
               "status": entrant.status, "language": entrant.spec.language,
               "source": entrant.spec.source,
               # why its status is not ok (disqualified: does not load: ...), as the table
               # and the JSON say it: a gradebook row must not leave the grade unexplained
               "message": entrant.message or ""}
        row.update({f"faults_{kind}": s.faults[kind] for kind in FAULT_KINDS})
        rows.append(row)
    return rows


def write_csv(columns, rows, line_end: str = "\n") -> str:
    """Every CSV pdharness writes goes through here: `rows` are dicts (by column) or
    sequences, and each cell is escaped and neutralized (safe_text.csv_cell), so no
    spreadsheet runs an agent's name, a path or a message."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=line_end)
    writer.writerow([csv_cell(column) for column in columns])
    for row in rows:
        cells = [row.get(column, "") for column in columns] if isinstance(row, dict) else row
        writer.writerow([csv_cell(cell) for cell in cells])
    return out.getvalue()
