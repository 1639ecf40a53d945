"""Turns per second of the game loop alone: two built-ins in the monitor's process
(`--isolation none`), 40 games of 500 turns, one move per turn, best of 7. What the loop
itself costs per turn (faults, noise, scoring, the fault policy's bookkeeping), with no
process or pipe in the way; run it through compare_commits.py to compare two commits.

    python benchmarks/game_loop.py
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.agents.specs import builtin_spec  # noqa: E402
from harness.core.rules import GameParams  # noqa: E402
from harness.engine.game import play_game  # noqa: E402
from harness.isolation.handles.opening import Isolation, open_handle  # noqa: E402

GAMES, TURNS, REPEAT = 40, 500, 7


def main() -> None:
    params = GameParams(moves_per_turn=1)
    a = open_handle(builtin_spec("titfortat"), Isolation("none"))
    b = open_handle(builtin_spec("random"), Isolation("none"))
    best = float("inf")
    for _ in range(REPEAT):
        began = time.perf_counter()
        for seed in range(GAMES):
            play_game(a, b, TURNS, seed, params)
        best = min(best, time.perf_counter() - began)
    print(f"game loop: {GAMES * TURNS / best:.0f} turns/s")
    print("load average: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
