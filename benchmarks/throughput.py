"""Moves per second on one fixed workload, pdharness and the Axelrod library measured alike.

Workload: 20 classic strategies, one round robin, 200 turns, one move per turn, noise 0.05
(no decay). Moves/s = moves played / seconds. Both sides are run `--repeat` times and the
median is reported, so one lucky run decides nothing. What is counted, per row:

- pdharness, built-ins: the 20 built-in strategies (trusted code, fed played moves directly
  in `none` mode);
- pdharness, files: 20 agent *files* (tests-like student code, `def Name(hist, score)`),
  which is what a course actually runs: a file agent is called with its whole hist;
- "games only" starts every agent before the clock; "with start-up" includes opening the
  agents (host processes, sandboxes) as a real tournament does;
- Axelrod Tournament: `Tournament.play(processes=None)` (serial, its result set built), 210
  matches because Axelrod plays each strategy against itself too; our round robin has no
  self-play (190 games): each side is credited with the moves it really played;
- Axelrod Match loop: the same 190 pairs through bare `Match.play`, its fastest path.

    pip install '.[bench]'                   # Axelrod 4.13 (see FACTS.md)
    python benchmarks/throughput.py          # all rows, median of 3
    python benchmarks/throughput.py --no-axelrod --modes none process --repeat 5
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
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
TURNS, NOISE, SEED = 200, 0.05, 2026

# Agent files as a student writes them: the strategy reads hist each call.
FILE_STRATEGIES = {
    "TitForTat": 'return ["C"] if not hist else [hist[-1][1]]',
    "Grudger": 'return ["D"] if any(theirs == "D" for _m, theirs in hist) else ["C"]',
    "Pavlov": ('if not hist:\n        return ["C"]\n    mine, theirs = hist[-1]\n'
               '    return [mine if theirs == "C" else ("D" if mine == "C" else "C")]'),
    "Random": 'import random\n    return [random.choice("CD")]',
    "Majority": ('defections = sum(theirs == "D" for _m, theirs in hist)\n'
                 '    return ["D" if 2 * defections > len(hist) else "C"]'),
}


def write_agent_files(folder: Path, count: int = 20) -> list[str]:
    """`count` agent files, the strategies above in turn, each under a name of its own."""
    paths = []
    kinds = list(FILE_STRATEGIES.items())
    for index in range(count):
        kind, body = kinds[index % len(kinds)]
        name = f"Bench{kind}{chr(ord('A') + index)}"
        path = folder / f"{name}.py"
        path.write_text(f"def {name}(hist, score):\n    {body}\n")
        paths.append(str(path))
    return paths


def ours(agents: list[str], mode: str, jobs: int, with_startup: bool) -> float:
    from harness.agents import resolve
    from harness.handles.opening import Isolation
    from harness.rounds import round_robin
    from harness.rules import FlipParams, GameParams
    from harness.runners import HandlePool, make_runner

    specs = resolve(agents)
    names = [spec.name for spec in specs]
    params = GameParams(flip=FlipParams(NOISE, 0.0), moves_per_turn=1)
    games = round_robin(names, 1, TURNS, SEED)
    began = time.perf_counter()
    pool = HandlePool(specs, Isolation(mode))
    for name in names:
        pool.handle(name)
    if not with_startup:
        began = time.perf_counter()
    runner = make_runner(pool, params, jobs)
    runner.play(games)
    elapsed = time.perf_counter() - began
    runner.close()
    return len(games) * TURNS / elapsed


def axelrod_rates(repeat: int):
    """(import seconds, Tournament moves/s samples, Match loop moves/s samples) or None."""
    try:
        began = time.perf_counter()
        import axelrod as axl
    except ImportError:
        return None
    imported = time.perf_counter() - began

    def players():
        return [getattr(axl, cls)(*args) for _name, cls, args in PAIRS]

    tournament_rates, match_rates = [], []
    for _ in range(repeat):
        tournament = axl.Tournament(players(), turns=TURNS, repetitions=1, noise=NOISE, seed=1)
        began = time.perf_counter()
        tournament.play(processes=None, progress_bar=False)   # serial: see FACTS.md
        matches = len(PAIRS) * (len(PAIRS) + 1) // 2            # self-play included: 210
        tournament_rates.append(matches * TURNS / (time.perf_counter() - began))
        everyone = players()
        began = time.perf_counter()
        for i, first in enumerate(everyone):
            for second in everyone[i + 1:]:
                axl.Match((first, second), turns=TURNS, noise=NOISE, seed=i).play()
        match_rates.append(len(PAIRS) * (len(PAIRS) - 1) // 2 * TURNS
                           / (time.perf_counter() - began))
    return imported, tournament_rates, match_rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-axelrod", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the median is shown")
    parser.add_argument("--modes", nargs="+", default=["none", "process", "sandbox"])
    options = parser.parse_args()
    cores = os.cpu_count() or 1
    builtins = [name for name, _cls, _args in PAIRS]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        files = write_agent_files(Path(folder))
        for mode in options.modes:
            for label, agents in (("built-ins", builtins), ("files", files)):
                for jobs in sorted({1, cores}):
                    for with_startup in (False, True):
                        rates = [ours(agents, mode, jobs, with_startup)
                                 for _ in range(options.repeat)]
                        when = "with start-up" if with_startup else "games only"
                        rows.append((f"pdharness {mode} {label} -j{jobs} {when}", rates))
    references = {}
    if not options.no_axelrod:
        figures = axelrod_rates(options.repeat)
        if figures is None:
            print("Axelrod library not installed: pip install '.[bench]'")
        else:
            imported, tournament_rates, match_rates = figures
            print(f"(import axelrod took {imported:.1f} s, not counted)")
            rows += [("Axelrod Tournament, serial", tournament_rates),
                     ("Axelrod bare Match.play loop", match_rates)]
            references = {"Tournament": statistics.median(tournament_rates),
                          "Match loop": statistics.median(match_rates)}
    print(f"workload: 20 strategies, one round robin, {TURNS} turns, 1 move/turn, noise {NOISE};"
          f" median of {options.repeat} runs, {cores} cores")
    header = "".join(f"  vs {name:>10}" for name in references)
    print(f"{'':<52} {'moves/s':>10}  {'min..max':>19}{header}")
    for label, rates in rows:
        median = statistics.median(rates)
        ratios = "".join(f"  {median / ref:12.2f}x" for ref in references.values())
        print(f"{label:<52} {median:>10,.0f}  {min(rates):>9,.0f}..{max(rates):<9,.0f}{ratios}")


if __name__ == "__main__":
    main()
