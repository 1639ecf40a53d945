"""What a fresh game start costs: CPU time of the monitor and the agent's host together.

    python benchmarks/game_start.py [--games N] [--repeat R] [--kinds builtin python hy lisp]
    python benchmarks/game_start.py --kinds python python-bundle python-bundle-reads \
        hy hy-bundle lisp lisp-bundle

A KIND-bundle is the same agent file in a bundle (harness/agents/bundles.py) beside a 10 KiB
data file and a helper module it does not use (what the harness adds: the agent's folder
entered, its import path); python-bundle-reads imports its helper and reads its data, as a
trained agent does, in every game.

Every game is played by a fresh process forked from the agent's zygote
(harness/isolation/process_tree.py) and killed at its end. For each kind of agent this plays N one-turn games, and one game of
N turns, on one handle, against a built-in inside the monitor; the difference of the two
CPU totals (monitor, host and all its children, read with getrusage once the host has been
reaped), divided by N, is what starting and ending a game costs beyond a turn. The median
of R repeats is printed (the machine may be shared: CPU time, not wall time, is measured).
Under `process` isolation: the sandbox runs the same host, but bubblewrap's processes do
not hand their children's CPU time on to the monitor when they are killed.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))   # floor.py, when run by compare_commits.py

from floor import game_process_ms, hy_game_process_ms, ratio  # noqa: E402 - beside this script

from harness.agents.specs import builtin_spec, file_spec  # noqa: E402
from harness.core.rules import GameParams  # noqa: E402
from harness.engine.game import play_game  # noqa: E402
from harness.isolation.handles.opening import Isolation, open_handle  # noqa: E402

AGENTS = {
    "python": ("Bench.py", "import random\n\ndef Bench(hist, score):\n"
                           "    return ['C', 'C', 'D' if random.random() < 0.1 else 'C']\n"),
    "hy": ("Bench.hy", "(defn Bench [hist score] [\"C\" \"C\" \"C\"])\n"),
    "lisp": ("Bench.lisp", "(defun Bench (hist score) (declare (ignore hist score)) '(C C C))\n"),
}


HELPERS = {".py": ("bench_helpers.py", "def three():\n    return ['C', 'C', 'C']\n"),
           ".hy": ("bench_helpers.hy", "(defn three [] [\"C\" \"C\" \"C\"])\n"),
           ".lisp": ("bench-helpers.lisp", "(defun bench-three () '(C C C))\n")}
READS = ("Bench.py", "import json, os\nfrom bench_helpers import three\n"
                     "with open(os.path.join(os.path.dirname(__file__), 'data.json')) as f:\n"
                     "    DATA = json.load(f)\n\ndef Bench(hist, score):\n    return three()\n")


def agent_spec(kind: str, folder: Path):
    """The spec of KIND's agent, written under FOLDER (a bundle for KIND-bundle...)."""
    if kind == "builtin":
        return builtin_spec("titfortat")
    language, _, bundled = kind.partition("-")
    name, text = READS if bundled == "bundle-reads" else AGENTS[language]
    if not bundled:
        path = folder / name
        path.write_text(text)
        return file_spec(path)
    bundle = folder / kind / "Bench"
    bundle.mkdir(parents=True)
    (bundle / name).write_text(text)
    helper, helper_text = HELPERS[Path(name).suffix]
    (bundle / helper).write_text(helper_text)
    (bundle / "data.json").write_text(json.dumps(list(range(1900))))   # ~10 KiB
    return file_spec(bundle)


def cpu_seconds() -> tuple[float, float]:
    """(the monitor's, its reaped children's): CPU seconds so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def cpu_of(spec, isolation, games: int, turns: int) -> tuple[float, float]:
    """(monitor, host) CPU seconds for `games` games of `turns` turns on one host, host
    start included."""
    opponent = open_handle(builtin_spec("titfortat"), Isolation("none"))
    began = cpu_seconds()
    handle = open_handle(spec, isolation)
    for game in range(games):
        play_game(handle, opponent, turns, game, GameParams())
    handle.close()  # the host is reaped: its CPU, and its children's, is counted now
    ended = cpu_seconds()
    return ended[0] - began[0], ended[1] - began[1]


def game_start_ms(spec, isolation, games: int) -> tuple[float, float]:
    """(monitor, host) ms of CPU a game start costs beyond a turn."""
    many = cpu_of(spec, isolation, games, 1)
    one = cpu_of(spec, isolation, 1, games)
    return tuple((m - o) / (games - 1) * 1000 for m, o in zip(many, one, strict=True))


def beside_floor(figure: float, floor: float | None) -> str:
    if floor is None:
        return ""
    return f"; floor {floor:.2f} ms, {ratio(figure, floor)} (target 1.5x)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kinds", nargs="*", default=["builtin", "python", "hy", "lisp"])
    options = parser.parse_args()
    isolation = Isolation("process", 10.0)
    with tempfile.TemporaryDirectory() as folder:
        # a cache every user can reach (a root monitor's agents run as users of their own):
        # else the hosts keep root's right to read, and so play without worlds
        os.chmod(folder, 0o755)
        os.environ.setdefault("PDHARNESS_CACHE", os.path.join(folder, "cache"))
        # the floor: the host's image forked into its world, filter installed, exit (a Hy
        # host's image holds Hy too); a Lisp host's is SBCL's, not measured here
        floors = {"python": game_process_ms(),
                  "hy": hy_game_process_ms()}
        print(f"the floor, an empty game's process (floor.py): Python host "
              f"{floors['python']:.2f} ms, Hy host {floors['hy']:.2f} ms; load average "
              f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}", flush=True)
        for kind in options.kinds:
            spec = agent_spec(kind, Path(folder))
            cpu_of(spec, isolation, 2, 1)  # warm caches (Hy's bytecode, SBCL's fasl)
            splits = [game_start_ms(spec, isolation, options.games)
                      for _ in range(options.repeat)]
            figures = [sum(split) for split in splits]
            monitor = statistics.median(split[0] for split in splits)
            host = statistics.median(split[1] for split in splits)
            print(f"{kind:8} a fresh game start: "
                  f"{statistics.median(figures):.2f} ms CPU (monitor {monitor:.2f} + host "
                  f"{host:.2f}; median of {options.repeat}: "
                  f"{', '.join(f'{f:.2f}' for f in figures)})"
                  + beside_floor(statistics.median(figures), floors.get(kind.split("-")[0])),
                  flush=True)
        print(f"load average after {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
