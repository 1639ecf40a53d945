"""What a fresh game start costs: CPU time of the monitor and the agent's host together.

    python benchmarks/game_start.py [--games N] [--repeat R] [--kinds builtin python hy lisp]

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
import resource
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def cpu_of(spec, isolation, games: int, turns: int) -> float:
    """CPU seconds for `games` games of `turns` turns on one host, host start included."""
    opponent = open_handle(builtin_spec("titfortat"), Isolation("none"))
    began = cpu_seconds()
    handle = open_handle(spec, isolation)
    for game in range(games):
        play_game(handle, opponent, turns, game, GameParams())
    handle.close()  # the host is reaped: its CPU, and its children's, is counted now
    return cpu_seconds() - began


def game_start_ms(spec, isolation, games: int) -> float:
    many = cpu_of(spec, isolation, games, 1)
    one = cpu_of(spec, isolation, 1, games)
    return (many - one) / (games - 1) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kinds", nargs="*", default=["builtin", "python", "hy", "lisp"])
    options = parser.parse_args()
    isolation = Isolation("process", 10.0)
    with tempfile.TemporaryDirectory() as folder:
        for kind in options.kinds:
            if kind == "builtin":
                spec = builtin_spec("titfortat")
            else:
                name, text = AGENTS[kind]
                path = Path(folder) / name
                path.write_text(text)
                spec = file_spec(path)
            cpu_of(spec, isolation, 2, 1)  # warm caches (Hy's bytecode, SBCL's fasl)
            figures = [game_start_ms(spec, isolation, options.games)
                       for _ in range(options.repeat)]
            print(f"{kind:8} a fresh game start: "
                  f"{statistics.median(figures):.2f} ms CPU (monitor + host; median of "
                  f"{options.repeat}: {', '.join(f'{f:.2f}' for f in figures)})", flush=True)


if __name__ == "__main__":
    main()
