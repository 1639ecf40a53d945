"""What a ladder's pass costs, through the real command: a class from scratch, then one new
version among them, then a pass with nothing new.

    python benchmarks/ladder.py                       # 40 agents, K=1, one-turn games, sandbox
    python benchmarks/ladder.py --agents 20 --games-per-pair 2 --length 10 50

The agents are benchmarks/class.py's renamed copies of the bundled students (Python, Hy
and Common Lisp in turn). Pass 1 validates every one (as `validate` does) and plays every
pair; pass 2 follows one agent's resubmission (a comment added: a new version) and plays
only its pairs; pass 3 finds nothing new. Printed per pass: wall time, CPU of the monitor
and its children (what wait4 hands on: bubblewrap's own reaping is missed, so read it as
a lower bound), games and turns played, and the load average before and after; then what
300 agents with K=2 would cost, on this machine and on a cluster (the games are
independent: a cluster divides them by its worker cores), from a game's start and turn
costs (pass 1's one-turn games against another ladder of the same agents' 30-turn games).

The rules here are shorter than a course's (one-turn games instead of 10-50 turns, one
game a pair) so that a run stays under two minutes on a loaded 2-core machine; the
estimate scales to the default rules' mean game (30 turns) with the measured costs.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def class_module():
    spec = importlib.util.spec_from_file_location("class_benchmark", ROOT / "benchmarks" / "class.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def a_pass(args, folder: Path, db: Path) -> dict:
    command = [sys.executable, "-m", "harness", "ladder", str(folder), "--db", str(db),
               "--games-per-pair", str(args.games_per_pair), "--length", *map(str, args.length),
               "--isolation", args.isolation, "--jobs", str(args.jobs), "--seed", "1",
               "--format", "json"]
    before_load, before_cpu, started = load(), children_cpu(), time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    wall = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"the pass failed: {done.stderr[-2000:]}")
    with sqlite3.connect(db) as connection:
        number, games = connection.execute(
            "SELECT number, games FROM pass ORDER BY number DESC LIMIT 1").fetchone()
        turns = connection.execute(
            "SELECT coalesce(sum(length), 0) FROM game WHERE played_in = ?",
            (number,)).fetchone()[0]
    failed = [e for e in json.loads(done.stdout)["entries"] if e["status"] != "ok"]
    split = re.search(r"validating ([0-9.]+) s, games ([0-9.]+) s", done.stderr)
    assert split, done.stderr
    return {"pass": number, "wall": wall, "cpu": children_cpu() - before_cpu, "games": games,
            "turns": turns, "load": f"{before_load} -> {load()}", "not ok": len(failed),
            "reading": float(split.group(1)), "playing": float(split.group(2))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=40)
    parser.add_argument("--games-per-pair", type=int, default=1)
    parser.add_argument("--length", type=int, nargs=2, default=(1, 1))
    parser.add_argument("--isolation", default="sandbox")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ladder-bench-", dir="/var/tmp") as base:
        folder, db = Path(base) / "subs", Path(base) / "ladder.sqlite"
        folder.mkdir()
        paths = class_module().write_copies(folder, args.agents)
        print(f"{args.agents} agents, K={args.games_per_pair}, lengths "
              f"{args.length[0]}-{args.length[1]}, --isolation {args.isolation}, "
              f"--jobs {args.jobs}, {os.cpu_count()} cores")
        results = [a_pass(args, folder, db)]
        with open(paths[0], "a", encoding="utf-8") as handle:
            handle.write("\n;; resubmitted\n" if paths[0].suffix != ".py" else "\n# resubmitted\n")
        results.append(a_pass(args, folder, db))
        results.append(a_pass(args, folder, db))
        for label, found in zip(("full pass (validates all)", "one new version",
                                 "nothing new"), results, strict=True):
            rate = found["games"] / found["wall"] if found["wall"] else 0.0
            print(f"pass {found['pass']} {label}: {found['wall']:.1f} s wall (reading and "
                  f"validating {found['reading']:.1f} s, games {found['playing']:.1f} s), "
                  f"{found['cpu']:.1f} s CPU seen, {found['games']} games, {found['turns']} "
                  f"turns ({rate:.1f} games/s), not ok: {found['not ok']}; "
                  f"load {found['load']}")
        small, small_db = Path(base) / "small", Path(base) / "small.sqlite"
        small.mkdir()
        for path in paths:
            (small / path.name).write_bytes(path.read_bytes())
        long_args = argparse.Namespace(**{**vars(args), "length": (30, 30)})
        long_game = a_pass(long_args, small, small_db)
        print(f"the same {args.agents} agents from scratch, 30-turn games: "
              f"{long_game['wall']:.1f} s wall (games "
              f"{long_game['playing']:.1f} s), {long_game['games']} games; "
              f"load {long_game['load']}")
        estimate(results[:2], long_game, args)


def estimate(results, long_game: dict, args) -> None:
    """300 agents, K=2: 89,700 games a full pass, 598 for a new version. A game's cost is
    split into its start and its turns from pass 1 (short games) and a small ladder of
    30-turn games (`long_game`, the same agents); a new version's pass also opens its
    299 opponents' processes, at pass 2's measured cost per agent."""
    full, new = results
    short = full["playing"] / full["games"]
    short_turns = full["turns"] / full["games"]
    long = long_game["playing"] / long_game["games"]
    per_turn = max(0.0, (long - short) / (30 - short_turns)) if short_turns < 30 else 0.0
    start = max(0.0, short - per_turn * short_turns)
    default_game = start + 30 * per_turn        # the default rules' mean game: 30 turns
    opening = max(0.0, new["playing"] - new["games"] * short) / args.agents
    validation = full["reading"] / args.agents
    whole, one = 89_700 * default_game, 598 * default_game + 299 * opening
    print(f"a game here: {start * 1000:.1f} ms to start + {per_turn * 1000:.2f} ms a turn "
          f"({default_game * 1000:.1f} ms at the default rules' 30 turns); opening an "
          f"agent's process {opening:.2f} s; validating one {validation:.2f} s")
    print(f"estimate, 300 agents, K=2, default rules: a full pass {whole / 3600:.1f} h here "
          f"({args.jobs} jobs) + {300 * validation / 60:.1f} min validating, about "
          f"{whole / 16 / 3600:.2f} h on a cluster of 32 worker cores; a new version's pass "
          f"(598 games, 299 opponents opened) {one / 60:.1f} min + {validation:.1f} s "
          "validating")


if __name__ == "__main__":
    main()
