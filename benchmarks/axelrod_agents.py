"""What an `axelrod:` opponent costs a game, beside a built-in's.

Plays GAMES games of TURNS turns (classic: one move a turn, no noise) between two agents,
one pair at a time through the real handles, as a tournament's serial runner does: Axelrod's
TitForTat against its Alternator (both served by the run's one Axelrod host), then the
built-ins titfortat and alternator, in each isolation mode asked for. The Axelrod host's
start (its 13-15 s import) is timed on its own, before the games; the load average is
printed with the figures.

    python benchmarks/axelrod_agents.py                 # process and none, 200 x 100
    python benchmarks/axelrod_agents.py --modes none --games 100 --turns 50
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PAIRS = {"axelrod:": ("axelrod:TitForTat", "axelrod:Alternator"),
         "built-in": ("titfortat", "alternator")}


def games_of(pair, mode: str, games: int, turns: int) -> float:
    """Seconds per game, the handles opened before the clock starts."""
    from harness.agents.specs import resolve_one
    from harness.core.rules import FlipParams, GameParams
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle

    params = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=1)
    handles = [open_handle(resolve_one(name)[0], Isolation(mode)) for name in pair]
    try:
        began = time.perf_counter()
        for seed in range(games):
            play_game(handles[0], handles[1], turns, seed, params)
        return (time.perf_counter() - began) / games
    finally:
        for handle in handles:
            handle.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", default=["process", "none"])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--turns", type=int, default=100)
    args = parser.parse_args()
    from harness.agents.specs import resolve_one
    from harness.isolation.handles.opening import Isolation, open_handle

    began = time.perf_counter()
    open_handle(resolve_one("axelrod:TitForTat")[0], Isolation("process")).close()
    print(f"Axelrod host start (import axelrod, once per run): "
          f"{time.perf_counter() - began:.1f} s  (load {os.getloadavg()[0]:.1f})")
    print(f"{args.games} games x {args.turns} turns, one move a turn, no noise")
    print(f"{'mode':<8} {'agents':<9} {'ms/game':>8} {'us/turn':>8}  load")
    for mode in args.modes:
        for label, pair in PAIRS.items():
            per_game = games_of(pair, mode, args.games, args.turns)
            print(f"{mode:<8} {label:<9} {per_game * 1e3:8.2f} {per_game / args.turns * 1e6:8.1f}"
                  f"  {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
