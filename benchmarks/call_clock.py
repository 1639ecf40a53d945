"""What timing a call costs the monitor (harness/isolation/own_time.py).

    python benchmarks/call_clock.py                  # process and sandbox
    python benchmarks/call_clock.py --isolation process --batches 9

Every call's request starts its agent's CallClock (two preads of open files: the agent's
cgroup CPU counter and its game's process's schedstat); the first call of each game finds
the game's process (the zygote's children file, and an open of its schedstat); a host's
first game walks the host's process tree once; a deadline that passes reads the counters
again and works them out. One real host of `student_agents/KhosmoodLevinson.py`, idle in
a game while it is measured: each figure is the median over `--batches` batches of the
per-operation CPU time of this thread (user and system: the work is all system calls and
Python in the monitor, and CPU time is what a loaded machine does not inflate), in
microseconds, with the load average. The monitor before it measured the agent's own time did
none of the first three and walked the tree at every deadline that passed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents.specs import file_spec  # noqa: E402
from harness.core.rules import Payoffs  # noqa: E402
from harness.isolation.handles.agent_handle import GameStart  # noqa: E402
from harness.isolation.handles.opening import Isolation, open_handle  # noqa: E402

STUDENT = ROOT / "student_agents" / "KhosmoodLevinson.py"


def per_operation(operation, count: int, batches: int) -> float:
    """Median CPU microseconds of one `operation()` over `batches` batches of `count`."""
    figures = []
    for _ in range(batches):
        started = time.thread_time()
        for _ in range(count):
            operation()
        figures.append((time.thread_time() - started) / count * 1e6)
    return statistics.median(figures)


def measure(isolation: str, batches: int) -> None:
    handle = open_handle(file_spec(STUDENT), Isolation(isolation, 10.0))
    try:
        handle.start_game(GameStart(1, 3, Payoffs()))
        handle.request(None)
        handle.collect()
        host = handle.host
        clock = host.clock

        def new_game():
            clock._serial = None   # as after END: the game's process is found again

        def new_host():
            clock._serial = clock._zygote = None   # as at a host's first game

        figures = {
            "a call's start": per_operation(lambda: clock.start(host.serial), 20000, batches),
            "a game's first call": per_operation(
                lambda: (new_game(), clock.start(host.serial)), 1000, batches),
            "a host's first call": per_operation(
                lambda: (new_host(), clock.start(host.serial)), 200, batches),
            "a deadline that passes": per_operation(clock.at_deadline, 2000, batches),
        }
    finally:
        handle.close()
    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{isolation}: " + ", ".join(f"{what} {us:.1f} us" for what, us in figures.items())
          + f"; load average {load}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isolation", choices=["process", "sandbox"], action="append")
    parser.add_argument("--batches", type=int, default=5)
    options = parser.parse_args()
    for isolation in options.isolation or ["process", "sandbox"]:
        measure(isolation, options.batches)


if __name__ == "__main__":
    main()
