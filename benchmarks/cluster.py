"""What a Dask cluster costs and gives: wall time of a mixed tournament (Python, Hy and
Common Lisp agents) and of replicates, run locally with --jobs 2 and on a LocalCluster of
two worker processes on this machine (the overhead), and the scaling model for k machines.

    python benchmarks/cluster.py                 # a few minutes: 16 agents, 10 replicates
    python benchmarks/cluster.py --agents 40 --replicates 40 --length 10 50   # full size

The model: a round of G games at c seconds of CPU each, on k machines of t cores, takes
about  G c / (k t) + (G / chunk) o / (k t) + tail,  where o is the per-task overhead
measured here (cluster time minus local time, per task) and the tail is the last chunk
(about a third of a thread's share, three chunks per thread). Rounds run one after the
other; replicates are independent, so R of them take about  R T1 / (k t) + o.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STUDENTS = ROOT / "student_agents"


def population(count: int, folder: Path) -> Path:
    """`count` agents: copies of the bundled students' agents (Python, Hy, Common Lisp)."""
    files = sorted(p for p in STUDENTS.iterdir() if p.suffix in (".py", ".hy", ".lisp")
                   and not p.name.startswith("_"))
    types = [{"id": path.stem, "agent": str(path), "count": 0} for path in files]
    for k in range(count):
        types[k % len(types)]["count"] += 1
    path = folder / "population.json"
    path.write_text(json.dumps({"types": [t for t in types if t["count"]]}))
    return path


def run(args, cluster=None) -> tuple[float, dict]:
    import subprocess

    command = [sys.executable, "-m", "harness", "tournament", *map(str, args), "-q",
               "--format", "json"] + (["--cluster", cluster] if cluster else [])
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    took = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    return took, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--replicates", type=int, default=10)
    parser.add_argument("--replicate-agents", type=int, default=12)
    parser.add_argument("--length", type=int, nargs=2, default=[10, 20])
    parser.add_argument("--isolation", default="process")
    options = parser.parse_args()
    from distributed import LocalCluster

    common = ["--seed", "1", "--isolation", options.isolation, "--timeout", "10",
              "--length", *options.length]
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores, shared)")
    with tempfile.TemporaryDirectory() as folder, LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, scheduler_port=0,
            dashboard_address=":0", worker_dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        field = ["--population", population(options.agents, Path(folder))]
        local, result = run(field + common + ["--jobs", "2"])
        remote, again = run(field + common, address)
        assert again == result, "the cluster's result differs"
        games = len(result["games"])
        rounds = len(result["rounds"])
        chunks = sum(min(6, len(r["scores"]) * (len(r["scores"]) - 1) // 2)
                     for r in result["rounds"])
        per_game = local * 2 / games          # CPU-seconds of a game (2 cores busy)
        per_task = (remote - local) / chunks   # below zero: lost in this machine's noise
        print(f"tournament, {options.agents} agents ({options.isolation}), {rounds} rounds, "
              f"{games} games: local --jobs 2 {local:.1f} s, LocalCluster 2x1 {remote:.1f} s"
              f" ({remote / local:.2f}x); {per_game * 1000:.0f} ms per game-core, "
              f"overhead {per_task * 1000:.0f} ms per chunk")

        small = Path(folder) / "small"
        small.mkdir()
        replicate_field = ["--population", population(options.replicate_agents, small)]
        extra = ["--replicates", str(options.replicates)]
        local_r, result_r = run(replicate_field + common + extra + ["--jobs", "2"])
        remote_r, again_r = run(replicate_field + common + extra, address)
        assert again_r == result_r, "the cluster's replicates differ"
        one = local_r * 2 / (options.replicates + 1)   # a tournament's core-seconds
        per_replicate = (remote_r - local_r) / options.replicates
        print(f"replicates, {options.replicates} of {options.replicate_agents} agents: "
              f"local --jobs 2 {local_r:.1f} s, LocalCluster 2x1 {remote_r:.1f} s "
              f"({remote_r / local_r:.2f}x); {one:.1f} core-s per tournament, overhead "
              f"{per_replicate * 1000:.0f} ms per replicate")

    print("model, k machines of 8 cores (3 chunks per thread; rounds one after another):")
    for k in (1, 4, 16):
        threads = 8 * k
        tournament = sum(_round_time(n, per_game, per_task, threads)
                         for n in _field_sizes(result))
        replicates = options.replicates * one / threads + max(0.0, per_replicate)
        print(f"  k={k:>2}: tournament ~{tournament:.1f} s, {options.replicates} replicates "
              f"~{replicates:.1f} s")


def _field_sizes(result) -> list[int]:
    return [len(r["scores"]) for r in result["rounds"]]


def _round_time(agents: int, per_game: float, per_task: float, threads: int) -> float:
    games = agents * (agents - 1) // 2
    chunks = min(games, 3 * threads)
    share = games * per_game / threads
    return share + chunks * max(0.0, per_task) / threads + share / 3 / max(1, chunks // threads)


if __name__ == "__main__":
    main()
