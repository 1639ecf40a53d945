"""What an experiment costs: 3 conditions x 20 replicates x 12 agents (4 types x 3 copies),
through the real code, and where its time goes.

    python benchmarks/experiment.py [--replicates 20] [--modes none process] [--jobs 1 2]

Prints, per isolation mode and --jobs, the wall time of the whole experiment (recorded to
SQLite), and for the first setting a breakdown: reading the file, playing the tournaments
(opening agents, games), writing the record, summarizing, the HTML report; then the
functions that take the most time (cProfile, one job, isolation none).
"""
from __future__ import annotations

import argparse
import cProfile
import functools
import io
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

print = functools.partial(print, flush=True)  # noqa: A001 (figures as they come)
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EXPERIMENT = {
    "types": [{"id": "tft", "agent": "titfortat", "count": 3},
              {"id": "wsls", "agent": "memory:0110", "count": 3},
              {"id": "grim", "agent": "grudger", "count": 3},
              {"id": "rand", "agent": "random", "count": 3}],
    "seed": 1,
    "conditions": [{"name": "quiet", "flip": [0.0, 0.0]},
                   {"name": "noisy", "flip": [0.25, 0.1]},
                   {"name": "geometric", "moves-per-turn": 1, "horizon": "geometric",
                    "stop-prob": 0.05, "length": [1, 100]}],
}


def run(folder: Path, replicates: int, mode: str, jobs: int, tag: str) -> dict:
    from harness.present.experiment_report import render
    from harness.run.experiment import experiment_session as session, plan
    from harness.run.experiment.summary import summarize

    path = folder / f"{tag}.json"
    path.write_text(json.dumps(dict(EXPERIMENT, replicates=replicates)))
    times = {}
    began = time.perf_counter()
    experiment = plan.load(path, mode)
    times["read the file"] = time.perf_counter() - began
    began = time.perf_counter()
    units = session.run(experiment, 1, db=folder / f"{tag}.sqlite", jobs=jobs, quiet=True)
    times["tournaments (recorded)"] = time.perf_counter() - began
    began = time.perf_counter()
    summaries = summarize(experiment, units)
    times["summary"] = time.perf_counter() - began
    began = time.perf_counter()
    render(experiment, 1, summaries)
    times["report"] = time.perf_counter() - began
    times["games"] = sum(unit.games for unit in units)
    times["tournaments"] = len(units)
    return times


def recording_cost(folder: Path, replicates: int) -> float:
    """Writing the record alone: the same tournaments' rows, written again."""
    from harness.run.experiment import plan
    from harness.run.experiment.record import ExperimentRecord
    from harness.run.experiment.run import play

    path = folder / "rec.json"
    path.write_text(json.dumps(dict(EXPERIMENT, replicates=replicates)))
    experiment = plan.load(path, "none")
    units = play(experiment, 1, None, 1)
    record = ExperimentRecord.create(folder / "rec.sqlite", experiment, 1, "none", None)
    began = time.perf_counter()
    for unit in units:
        record.add(unit)
    record.close()
    return time.perf_counter() - began


def profile(folder: Path) -> str:
    from harness.run.experiment import plan
    from harness.run.experiment.run import play

    path = folder / "profile.json"
    path.write_text(json.dumps(dict(EXPERIMENT, replicates=3)))
    experiment = plan.load(path, "none")
    profiler = cProfile.Profile()
    profiler.enable()
    play(experiment, 1, None, 1)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(8)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    return "\n".join(lines[start:start + 9])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--modes", nargs="+", default=["none", "process"])
    parser.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        print(f"experiment: 3 conditions x {options.replicates} replicates x 12 agents "
              "(tft, wsls = memory:0110, grim, random; 3 copies each)")
        first = None
        for mode in options.modes:
            for jobs in options.jobs:
                times = run(folder, options.replicates, mode, jobs, f"{mode}-{jobs}")
                first = first or (mode, jobs, times)
                total = sum(v for k, v in times.items() if k not in ("games", "tournaments"))
                print(f"  isolation {mode:<8} --jobs {jobs}: {total:6.2f} s for "
                      f"{times['tournaments']} tournaments, {times['games']} games "
                      f"({1000 * total / times['tournaments']:.0f} ms a tournament)")
        mode, jobs, times = first
        print(f"\nwhere the time goes (isolation {mode}, --jobs {jobs}):")
        for key, value in times.items():
            if key not in ("games", "tournaments"):
                print(f"  {key:<24} {value:7.3f} s")
        print(f"  of which writing the record {recording_cost(folder, options.replicates):.3f}"
              " s (measured apart)")
        print("\nhottest functions, one job, isolation none, 3 replicates (cProfile, tottime):")
        print(profile(folder))


if __name__ == "__main__":
    main()
