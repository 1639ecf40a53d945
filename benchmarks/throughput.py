"""Moves per second on one fixed workload, pdharness and the Axelrod library measured alike.

Workload: 20 classic strategies, one round robin, 200 turns, one move per turn, noise 0.05
(no decay). Moves/s = matches x turns / seconds (a turn is one move of each player: both
sides count it the same way); ms/match is the same figure per match. Every row is run
`--repeat` times, the rows interleaved (each repetition runs every row once, starting one
row further on), and the median is shown, so a busy moment of a shared machine falls on
all rows alike and one lucky run decides nothing. The load average is printed with them.

- pdharness, built-ins: the 20 built-in strategies (trusted code; in `none` mode they are
  fed the played moves directly, their fast path);
- pdharness, files: 20 agent *files* (student-style code, `def Name(hist, score)`), which
  is what a course runs: a file agent is called with its whole hist, in process and
  sandbox isolation from a fresh process per game;
- "games only" is measured from the first game to the last, every agent opened before;
  "whole run" also counts opening the agents (host processes, sandboxes) before and
  closing them after, as a tournament does. Both come from the same run;
- Axelrod Tournament: `Tournament.play(processes=None)` (serial), its result set built (its
  slowest path); 210 matches, because Axelrod also plays each strategy against itself
  (our round robin has no self-play: 190 games). Each side is credited with the matches
  it really played;
- Axelrod Match loop: the same 190 pairs as ours through bare `Match.play`, its fastest
  path (fresh `Match` objects, players reset by Axelrod as it does between matches).

The ratios are not a ratio of two medians taken minutes apart: the two Axelrod references
are run before the first of our runs and again after each one, and each of our runs is
divided by the geometric mean of the reference runs just before and just after it; the
median of those ratios is shown (the references thus run more often than ours; their
rows show the median of all their runs).

Axelrod runs in a process of its own (started, and `import axelrod` done, before any
measurement), so its 300 MB of imports do not make the monitor's forks dearer. Axelrod's
Tournament is serial: `processes=N` starts workers that each re-import the library
(~20 s), so the ratios are shown for our one-job rows only.

    pip install '.[bench]'                   # Axelrod 4.13 (see docs/facts.md)
    python benchmarks/throughput.py          # every row, median of 3 (long on a busy machine)
    python benchmarks/throughput.py --modes none process --kinds files --jobs 1 --repeat 5
    python benchmarks/throughput.py --no-axelrod --modes none --turns 50   # a short run
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))   # floor.py, beside this one

from floor import idle_policy  # noqa: E402 - beside this script

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
NOISE, SEED = 0.05, 2026
OUR_MATCHES = len(PAIRS) * (len(PAIRS) - 1) // 2          # 190: no self-play
AXELROD_TOURNAMENT_MATCHES = OUR_MATCHES + len(PAIRS)      # 210: self-play included

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


def write_agent_files(folder: Path, count: int = len(PAIRS)) -> list[str]:
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


def ours(agents: list[str], mode: str, jobs: int, turns: int) -> tuple[float, float]:
    """(games-only seconds, whole-run seconds) of one round robin."""
    from harness.agents.specs import resolve
    from harness.core.rules import FlipParams, GameParams
    from harness.engine.rounds import round_robin
    from harness.engine.runners import HandlePool, make_runner
    from harness.isolation.handles.opening import Isolation

    specs = resolve(agents)
    names = [spec.name for spec in specs]
    params = GameParams(flip=FlipParams(NOISE, 0.0), moves_per_turn=1)
    games = round_robin(names, 1, turns, SEED)
    assert len(games) == OUR_MATCHES
    started = time.perf_counter()
    pool = HandlePool(specs, Isolation(mode))
    for name in names:
        pool.handle(name)
    first_game = time.perf_counter()
    runner = make_runner(pool, params, jobs)
    runner.play(games)
    last_game = time.perf_counter()
    runner.close()
    pool.close()
    return last_game - first_game, time.perf_counter() - started


# --- the Axelrod side, in a process of its own -------------------------------------------

def axelrod_worker() -> None:
    """Reads 'tournament TURNS' or 'match TURNS' lines, answers each with the seconds."""
    import axelrod as axl

    def players():
        return [getattr(axl, cls)(*args) for _name, cls, args in PAIRS]

    print("ready", flush=True)
    for line in sys.stdin:
        what, turns = line.split()
        turns = int(turns)
        if what == "tournament":
            tournament = axl.Tournament(players(), turns=turns, repetitions=1, noise=NOISE,
                                        seed=1)
            began = time.perf_counter()
            tournament.play(processes=None, progress_bar=False)  # serial: see docs/facts.md
        else:
            everyone = players()
            began = time.perf_counter()
            for i, first in enumerate(everyone):
                for second in everyone[i + 1:]:
                    axl.Match((first, second), turns=turns, noise=NOISE, seed=i).play()
        print(time.perf_counter() - began, flush=True)


class Axelrod:
    """The Axelrod library in a child process, imported once before anything is timed."""

    def __init__(self):
        began = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--axelrod-worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        self.ready = self.process.stdout.readline().strip() == "ready"
        self.import_seconds = time.perf_counter() - began

    def seconds(self, what: str, turns: int) -> float:
        self.process.stdin.write(f"{what} {turns}\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait()


# --- rows, interleaved --------------------------------------------------------------------

def load() -> str:
    return "load average " + " ".join(f"{value:.1f}" for value in os.getloadavg())


REFERENCES = {"Tournament": "Axelrod Tournament, serial, result set",
              "Match loop": "Axelrod bare Match.play loop"}


class Samples:
    """Seconds per row, and each of our runs' rate over the references' rates measured
    just before and just after it (their geometric mean): a ratio taken in the same
    minute, which a load that drifts over the whole benchmark does not bend."""

    def __init__(self):
        self.matches, self.seconds, self.ratios = {}, {}, {}

    def add(self, label: str, matches: int, seconds: float) -> float:
        self.matches[label] = matches
        self.seconds.setdefault(label, []).append(seconds)
        print(f"  {label}: {matches / seconds:,.1f} matches/s", file=sys.stderr, flush=True)
        return matches / seconds

    def add_ratio(self, label: str, reference: str, ratio: float) -> None:
        self.ratios.setdefault(label, {}).setdefault(reference, []).append(ratio)


def measure(runs, references, repeat: int) -> Samples:
    """`runs` and `references` are (labels, matches, function returning seconds per label).
    Each repetition runs every one of ours once, rotated one further each time, with the
    references run before the first and after each of ours."""
    samples = Samples()

    def run_references() -> dict[str, float]:
        rates = {}
        for labels, matches, run in references:
            for label, seconds in zip(labels, run(), strict=True):
                rates[label] = samples.add(label, matches, seconds)
        for name, label in REFERENCES.items():  # the references against each other too
            for other in rates:
                samples.add_ratio(other, name, rates[other] / rates[label])
        return rates

    before = run_references() if references else {}
    for repetition in range(repeat):
        shift = repetition % len(runs)
        for labels, matches, run in runs[shift:] + runs[:shift]:
            figures = run()
            after = run_references() if references else {}
            for label, seconds in zip(labels, figures, strict=True):
                rate = samples.add(label, matches, seconds)
                for name, reference in REFERENCES.items() if references else ():
                    samples.add_ratio(label, name,
                                      rate / math.sqrt(before[reference] * after[reference]))
            before = after
        print(f"  repetition {repetition + 1}/{repeat} done, {load()}", file=sys.stderr,
              flush=True)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-axelrod", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the median is shown")
    parser.add_argument("--modes", nargs="+", default=["none", "process", "sandbox"],
                        choices=["none", "process", "sandbox"])
    parser.add_argument("--kinds", nargs="+", default=["built-ins", "files"],
                        choices=["built-ins", "files"])
    parser.add_argument("--jobs", nargs="+", type=int,
                        help="--jobs values of our rows (default: 1 and the core count)")
    parser.add_argument("--turns", type=int, default=200,
                        help="turns per match, both sides (200 is the reference workload)")
    parser.add_argument("--axelrod-worker", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.axelrod_worker:
        return axelrod_worker()
    cores = os.cpu_count() or 1
    jobs_values = sorted(set(options.jobs or {1, cores}))
    turns = options.turns
    print(f"{load()} at the start", flush=True)
    axelrod = None
    if not options.no_axelrod:
        axelrod = Axelrod()
        if not axelrod.ready:
            print("Axelrod library not installed: pip install '.[bench]'")
            axelrod = None
        else:
            print(f"(import axelrod took {axelrod.import_seconds:.1f} s, in its own process, "
                  "not counted)", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        agents = {"built-ins": [name for name, _cls, _args in PAIRS],
                  "files": write_agent_files(Path(folder))}
        runs, references = [], []
        for mode in options.modes:
            for kind in options.kinds:
                for jobs in jobs_values:
                    label = f"pdharness {mode} {kind} -j{jobs}"
                    runs.append(((f"{label} games only", f"{label} whole run"), OUR_MATCHES,
                                 lambda a=agents[kind], m=mode, j=jobs: ours(a, m, j, turns)))
        if axelrod is not None:
            references = [((REFERENCES["Tournament"],), AXELROD_TOURNAMENT_MATCHES,
                           lambda: [axelrod.seconds("tournament", turns)]),
                          ((REFERENCES["Match loop"],), OUR_MATCHES,
                           lambda: [axelrod.seconds("match", turns)])]
        samples = measure(runs, references, options.repeat)
    if axelrod is not None:
        axelrod.close()
    report(samples, turns, options.repeat, cores)


def report(samples: Samples, turns: int, repeat: int, cores: int) -> None:
    ours_first = sorted(samples.seconds, key=lambda label: label.startswith("Axelrod"))
    rates = {label: sorted(samples.matches[label] * turns / seconds
                           for seconds in samples.seconds[label]) for label in ours_first}
    names = [name for name, label in REFERENCES.items() if label in rates]
    print(f"workload: 20 strategies, one round robin, {turns} turns, 1 move/turn, noise "
          f"{NOISE}; median of {repeat} interleaved runs, {cores} cores ({idle_policy()}); "
          f"{load()} at the end")
    if names:
        print("ratios: the median of each run's rate over the Axelrod rates measured just "
              "before and after it")
    header = "".join(f"  vs {name:>10}" for name in names)
    print(f"{'':<50} {'moves/s':>9} {'min..max':>17} {'ms/match':>9}{header}")
    for label, values in rates.items():
        median = statistics.median(values)
        serial = " -j1 " in label or label.startswith("Axelrod")
        ratios = "".join(
            f"  {statistics.median(samples.ratios[label][name]):12.2f}x" if serial
            else f"  {'':>12} " for name in names)
        print(f"{label:<50} {median:>9,.0f} {values[0]:>8,.0f}..{values[-1]:<8,.0f}"
              f"{turns * 1000 / median:>9.2f}{ratios}")
    parallel = sorted({label.split()[3] for label in rates
                       if label.startswith("pdharness") and " -j1 " not in label})
    if names and parallel:
        print(f"(no ratio for {', '.join(parallel)}: Axelrod's figures are serial, one core)")


if __name__ == "__main__":
    main()
