"""The floors under the class tournament's speed budgets on this machine: what the operating system alone
costs for the two things every game of an agent in a process needs, before any of our code.

    python benchmarks/floor.py [--forks N] [--round-trips N] [--repeat R]

- **A fresh process:** fork, `_exit` at once, and the parent's wait, from a bare CPython
  (`-S -I`: no site, nothing imported beyond what the interpreter needs) and from one that
  has imported what a Python host imports (harness/isolation/host.py): CPU of parent and
  child together, per process. A game's process is at least this, before its world, its
  seccomp filter or any agent code (benchmarks/game_process_cost.py times those).
- **A call's two wake-ups:** a one-line request and a one-line reply over two pipes
  between two processes that do nothing else (a bare CPython each side): CPU of both per
  round trip, placed where the kernel likes (as a tournament's processes are) and both on
  one CPU.

The median of R repeats is printed, their range, and the load average: CPU time, not wall
time, so a shared machine distorts it less, but wake-ups cost more on a crowded one.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CPU = """
import resource
def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
"""

FORKS = _CPU + """
import gc, os, sys
count = int(sys.argv[1])
gc.freeze()
began = cpu()
for _ in range(count):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
print((cpu() - began) / count)
"""

ROUND_TRIPS = _CPU + """
import os, sys
count, one_cpu = int(sys.argv[1]), sys.argv[2] == "1"
if one_cpu:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
requests, replies = os.pipe(), os.pipe()
began = cpu()
pid = os.fork()
if pid == 0:
    for _ in range(count):
        os.read(requests[0], 64)
        os.write(replies[1], b"MOVES CCC\\n")
    os._exit(0)
for _ in range(count):
    os.write(requests[1], b"TURN 3 CCD CDC\\n")
    os.read(replies[0], 64)
os.waitpid(pid, 0)
print((cpu() - began) / count)
"""

HOST_IMPORTS = "import harness.isolation.host, harness.agents.runtime\n"


def run(script: str, *args: object, preamble: str = "", flags=("-S", "-I")) -> float:
    """Seconds of CPU per operation, as the script prints it."""
    command = [sys.executable, *flags, "-c", preamble + script, *map(str, args)]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    output = subprocess.run(command, check=True, capture_output=True, text=True,
                            env=environment).stdout
    return float(output)


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def figures(repeat: int, measure, scale: float, unit: str) -> str:
    """The median of `repeat` measures, and their range: where the kernel places two
    processes that wake each other, the same CPU or not, changes a round trip 8-fold."""
    values = [measure() * scale for _ in range(repeat)]
    return (f"{statistics.median(values):.3g} {unit} "
            f"({min(values):.3g}..{max(values):.3g})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--forks", type=int, default=2000)
    parser.add_argument("--round-trips", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    print(f"floor.py: {os.cpu_count()} cores; Python {sys.version.split()[0]}; "
          f"load average {load()}")
    bare = figures(options.repeat, lambda: run(FORKS, options.forks), 1e3, "ms")
    # a host is started with -I too, but finds the harness where it is installed: here
    # sys.path[0] is the checkout, as PYTHONPATH would make it
    host = figures(options.repeat, lambda: run(
        FORKS, options.forks, preamble=f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
                                       + HOST_IMPORTS), 1e3, "ms")
    print(f"  a fresh process (fork, exit, wait), CPU: bare CPython {bare}; "
          f"with a Python host's imports {host}")
    free = figures(options.repeat, lambda: run(ROUND_TRIPS, options.round_trips, 0), 1e6, "us")
    pinned = figures(options.repeat, lambda: run(ROUND_TRIPS, options.round_trips, 1), 1e6,
                     "us")
    print(f"  a request and its reply over pipes, CPU: placed by the kernel {free}; "
          f"both on one CPU {pinned}")
    print(f"  medians of {options.repeat} (range); load average after {load()}")


if __name__ == "__main__":
    main()
