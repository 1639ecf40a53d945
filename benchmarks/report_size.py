"""How big the HTML report is for a course-sized field, with its turn-by-turn evidence:
40 agents (Memory-1 and Memory-2 strategies, in-process), the default lengths 10-50.

    python benchmarks/report_size.py [AGENTS]

Prints the report's size and how much of it is the games section."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def field(count: int) -> list[str]:
    """`count` distinct strategies: every Memory-1 vector, then Memory-2 vectors."""
    specs = [f"memory:{n:04b}" for n in range(16)]
    specs += [f"memory:{(n * 2654435761) % 65536:016b}" for n in range(1, count)]
    return list(dict.fromkeys(specs))[:count]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.html"
        subprocess.run([sys.executable, "-m", "harness", "tournament", *field(count),
                        "--seed", "1", "--isolation", "none", "--report", str(report), "-q",
                        "--format", "json"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        text = report.read_text(encoding="utf-8")
    games = text[text.find('<section id="games">'):]
    views = len(re.findall(r'<details class="game">', text))
    print(f"{count} agents: report {len(text.encode()) / 1e6:.2f} MB, of which the games "
          f"section {len(games.encode()) / 1e6:.2f} MB ({views} games shown)")


if __name__ == "__main__":
    main()
