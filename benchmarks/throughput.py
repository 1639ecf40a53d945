"""Moves per second on one fixed workload, against the Axelrod library in the same run.

Workload: 20 built-in strategies, one round robin (190 games), 200 turns, one move per
turn, flips 0.05 with no decay. Moves/s = games x turns / seconds, as the Axelrod library
counts them. Our agents are timed from the first game to the last (hosts already started);
Axelrod's import (~10-20 s) is reported, not counted.

    python benchmarks/throughput.py            # needs `pip install '.[bench]'` for Axelrod
    python benchmarks/throughput.py --no-axelrod
Targets (issue 2): none >= 10x Axelrod's serial tournament; process >= 1x.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# ours -> the Axelrod library's class (and arguments)
PAIRS = [
    ("cooperate", "Cooperator", ()), ("defect", "Defector", ()),
    ("titfortat", "TitForTat", ()), ("grudger", "Grudger", ()),
    ("pavlov", "WinStayLoseShift", ()), ("titfortwotats", "TitFor2Tats", ()),
    ("alternator", "Alternator", ()), ("random", "Random", ()),
    ("suspicioustitfortat", "SuspiciousTitForTat", ()), ("twotitsfortat", "TwoTitsForTat", ()),
    ("hardtitfortat", "HardTitForTat", ()), ("bully", "Bully", ()),
    ("winshiftlosestay", "WinShiftLoseStay", ()), ("cyclerccd", "Cycler", ("CCD",)),
    ("cyclerddc", "Cycler", ("DDC",)), ("cyclercccd", "Cycler", ("CCCD",)),
    ("softmajority", "GoByMajority", ()), ("hardmajority", "HardGoByMajority", ()),
    ("forgiver", "Forgiver", ()), ("antitfortat", "AntiTitForTat", ()),
]
TURNS, NOISE = 200, 0.05


def ours(mode: str, jobs: int) -> float:
    from harness.agents import resolve
    from harness.handles.opening import Isolation
    from harness.rounds import round_robin
    from harness.rules import FlipParams, GameParams
    from harness.runners import HandlePool, make_runner

    names = [name for name, _cls, _args in PAIRS]
    pool = HandlePool(resolve(names), Isolation(mode))
    for name in names:
        pool.handle(name)               # start every host before the clock starts
    params = GameParams(flip=FlipParams(NOISE, 0.0), moves_per_turn=1)
    runner = make_runner(pool, params, jobs)
    games = round_robin(names, 1, TURNS, 2026)
    began = time.perf_counter()
    runner.play(games)
    elapsed = time.perf_counter() - began
    runner.close()
    return len(games) * TURNS / elapsed


def axelrod_figures() -> tuple[float, float, float] | None:
    try:
        began = time.perf_counter()
        import axelrod as axl
    except ImportError:
        return None
    imported = time.perf_counter() - began

    def players():
        return [getattr(axl, cls)(*args) for _name, cls, args in PAIRS]

    began = time.perf_counter()
    tournament = axl.Tournament(players(), turns=TURNS, repetitions=1, noise=NOISE, seed=1)
    tournament.play(processes=None, progress_bar=False)   # serial: see FACTS.md
    serial = 190 * TURNS / (time.perf_counter() - began)
    everyone = players()
    began = time.perf_counter()
    for i, first in enumerate(everyone):
        for second in everyone[i + 1:]:
            axl.Match((first, second), turns=TURNS, noise=NOISE, seed=i).play()
    matches = 190 * TURNS / (time.perf_counter() - began)
    return imported, serial, matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-axelrod", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    options = parser.parse_args()
    cores = os.cpu_count() or 1
    rows = []
    for mode in ("none", "process"):
        for jobs in sorted({1, cores}):
            rate = max(ours(mode, jobs) for _ in range(options.repeat))
            rows.append((f"pdharness {mode:<8} --jobs {jobs}", rate))
    reference = None
    if not options.no_axelrod:
        figures = axelrod_figures()
        if figures is None:
            print("Axelrod library not installed: pip install '.[bench]'")
        else:
            imported, serial, matches = figures
            print(f"(import axelrod took {imported:.1f} s, not counted)")
            rows += [("Axelrod Tournament, serial", serial), ("Axelrod bare Match.play", matches)]
            reference = serial
    print(f"workload: 20 strategies, 190 games x {TURNS} turns, 1 move/turn, noise {NOISE}")
    for label, rate in rows:
        ratio = f"  {rate / reference:5.1f}x Axelrod serial" if reference else ""
        print(f"{label:<32} {rate:>10,.0f} moves/s{ratio}")


if __name__ == "__main__":
    main()
