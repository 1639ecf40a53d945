"""What recording a run costs: a tournament with and without --db, the record's size, and
how long reading it back (show, report, resume) takes, and the share of it that checks the
record holds what pdharness writes.

    python benchmarks/records.py [--agents N] [--length LMIN LMAX]

Agents are N small Python files (isolation none, one job), so the figure is the record's
own cost, not the agents'.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents.specs import resolve  # noqa: E402
from harness.core.rules import GameLength  # noqa: E402
from harness.engine.tournament import Settings, run_tournament  # noqa: E402
from harness.isolation.handles.opening import Isolation  # noqa: E402

AGENT = '''import random


def {name}(hist, score):
    if not hist:
        return ["C", "C", "C"]
    last = hist[-1][1]
    return [last, last if random.random() < {p} else "D", "C"]
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=24)
    parser.add_argument("--length", type=int, nargs=2, default=[10, 50])
    options = parser.parse_args()
    from harness.present.tournament_report import render
    from harness.store.reader import Record
    from harness.store.recorder import Recorder

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        for k in range(options.agents):
            name = f"Agent{k:03d}"
            (folder / f"{name}.py").write_text(AGENT.format(name=name, p=0.5 + k / 100))
        specs = resolve([str(folder)])
        settings = Settings(length=GameLength(*options.length), isolation=Isolation("none"),
                            jobs=1)

        began = time.perf_counter()
        plain = run_tournament(specs, 1, settings)
        bare = time.perf_counter() - began

        path = folder / "run.sqlite"
        began = time.perf_counter()
        recorder = Recorder.create(path, specs, 1, settings)
        recorded = run_tournament(specs, 1, settings, recorder)
        recorder.finished(recorded)
        recorder.complete()
        recorder.close()
        with_db = time.perf_counter() - began
        size = path.stat().st_size
        assert recorded.pairs() == plain.pairs()

        moves = sum(len(game.turns) for game in recorded.games) * 3
        began = time.perf_counter()
        with Record(path) as record:
            result = record.result()
        read = time.perf_counter() - began
        import sqlite3

        from harness.store.reader import check_types

        connection = sqlite3.connect(path)
        began, cpu = time.perf_counter(), time.process_time()
        check_types(connection, path)  # part of `read`: what a hand-edit check costs
        check, check_cpu = time.perf_counter() - began, time.process_time() - cpu
        connection.close()
        began = time.perf_counter()
        page = render(result)
        report = time.perf_counter() - began

    print(f"{options.agents} agents, {len(recorded.rounds)} rounds, {len(recorded.games)} "
          f"games, {moves} moves")
    print(f"tournament without record: {bare:.2f} s; with --db: {with_db:.2f} s "
          f"(+{with_db - bare:.2f} s, {moves / max(with_db - bare, 1e-9):,.0f} moves/s "
          "written)")
    print(f"record: {size / 2 ** 20:.1f} MiB ({size / moves:.1f} bytes a move)")
    print(f"reading the whole record back: {read:.2f} s; rendering the report: {report:.2f} s "
          f"({len(page) // 1024} KiB)")
    print(f"of which checking every value's type: {check:.2f} s ({check_cpu:.2f} s CPU)")


if __name__ == "__main__":
    main()
