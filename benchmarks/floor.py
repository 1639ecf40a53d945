"""The floors under the speed targets on this machine: what the operating system alone
costs for the two things every game of an agent in a process needs, before any of our code.

    python benchmarks/floor.py [--forks N] [--round-trips N] [--repeat R]

- **A fresh process:** fork, `_exit` at once, and the parent's wait, from a bare CPython
  (`-S -I`: no site, nothing imported beyond what the interpreter needs) and from one that
  has imported what a Python host imports (harness/isolation/host.py): CPU of parent and
  child together, per process. A game's process is at least this, before its world, its
  seccomp filter or any agent code (benchmarks/game_process_cost.py times those).
- **An empty game's process:** the same host image forked as a Python host forks a game
  (into a PID namespace of its own, from a zygote in a world), its mounts built and the
  game's seccomp filter installed, then `_exit`: the floor under a game start
  (`game_start.py` prints it beside its figures).
- **A call's two wake-ups:** a one-line request and a one-line reply over two pipes
  between two processes that do nothing else (a bare CPython each side): CPU of both per
  round trip, placed where the kernel likes (as a tournament's processes are) and both on
  one CPU (the floor under a call: `call_cost.py` prints it beside its figures).

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

# a game's process as a Python host makes it, doing nothing: forked into a PID namespace of
# its own from a zygote in a world (harness/isolation/world.py), its mounts built and the
# game's seccomp filter installed, then `_exit`. Where no user namespace can be made, plain
# forks (as the host's games are then).
WORLD_FORKS = _CPU + """
import gc, os, sys
from harness.isolation import seccomp, world
count = int(sys.argv[1])
code = seccomp.program(no_fork=False)
install = seccomp.installer(code) if code else None
made = world.enter()
gc.freeze()
began = cpu()
for _ in range(count):
    pid = made.fork() if made is not None else os.fork()
    if pid == 0:
        if made is not None:
            made.build()
        if install is not None:
            install()
        os._exit(0)
    os.waitpid(pid, 0)
print((cpu() - began) / count, flush=True)
os._exit(0)
"""


def run(script: str, *args: object, preamble: str = "", flags=("-S", "-I")) -> float:
    """Seconds of CPU per operation, as the script prints it."""
    command = [sys.executable, *flags, "-c", preamble + script, *map(str, args)]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    output = subprocess.run(command, check=True, capture_output=True, text=True,
                            env=environment).stdout
    return float(output)


def _with_checkout(imports: str) -> str:
    # a host is started with -I too, but finds the harness where it is installed: here
    # sys.path[0] is the checkout, as PYTHONPATH would make it
    return f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + imports


def fork_exit_ms(forks: int = 1000, imports: str = "") -> float:
    """CPU of a fork, `_exit` and wait, ms, from a CPython that imported `imports` first."""
    return run(FORKS, forks, preamble=_with_checkout(imports)) * 1e3


def game_process_ms(forks: int = 500, imports: str = HOST_IMPORTS, site: bool = False) -> float:
    """CPU of a Python host's empty game, ms: the floor under a game start (fork and exit
    of the host's image, its world and its filter; no agent code, no monitor). `site`:
    with the site folders (a Hy host finds Hy there)."""
    flags = ("-I",) if site else ("-S", "-I")
    return run(WORLD_FORKS, forks, preamble=_with_checkout(imports), flags=flags) * 1e3


def hy_game_process_ms(forks: int = 500) -> float:
    """The same for a Hy host, whose image holds Hy (found in the site folders)."""
    return game_process_ms(forks, imports=HOST_IMPORTS + "import hy\n", site=True)


def round_trip_us(count: int = 10000, one_cpu: bool = True) -> float:
    """CPU of a one-line request and its reply over two pipes between two bare CPythons,
    us: the floor under a call (both on one CPU: the cheaper placement)."""
    return run(ROUND_TRIPS, count, int(one_cpu)) * 1e6


def ratio(figure: float, floor: float) -> str:
    return f"{figure / floor:.1f}x its floor" if floor > 0 else "floor not measured"


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def idle_policy() -> str:
    """How this machine's idle CPUs wait, printed beside the figures: on a VM whose idle
    vCPUs halt at once (cpuidle `haltpoll`, `guest_halt_poll_ns` 0), waking a process on
    the other CPU costs tens of us more (benchmarks/README.md, "Wake-ups on a VM")."""
    cpuidle = Path("/sys/devices/system/cpu/cpuidle/current_driver")
    poll = Path("/sys/module/haltpoll/parameters/guest_halt_poll_ns")
    try:
        driver = cpuidle.read_text().strip()
    except OSError:
        return "cpuidle: not told"
    if driver != "haltpoll":
        return f"cpuidle {driver}"
    try:
        return f"cpuidle haltpoll, guest_halt_poll_ns {poll.read_text().strip()}"
    except OSError:
        return "cpuidle haltpoll"


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
    print(f"floor.py: {os.cpu_count()} cores ({idle_policy()}); Python "
          f"{sys.version.split()[0]}; load average {load()}")
    bare = figures(options.repeat, lambda: fork_exit_ms(options.forks), 1, "ms")
    host = figures(options.repeat, lambda: fork_exit_ms(options.forks, HOST_IMPORTS), 1, "ms")
    print(f"  a fresh process (fork, exit, wait), CPU: bare CPython {bare}; "
          f"with a Python host's imports {host}")
    game = figures(options.repeat, lambda: game_process_ms(options.forks // 2), 1, "ms")
    print(f"  an empty game's process (the host's image forked into its world, filter "
          f"installed, exit), CPU: {game}")
    free = figures(options.repeat, lambda: round_trip_us(options.round_trips, False), 1, "us")
    pinned = figures(options.repeat, lambda: round_trip_us(options.round_trips, True), 1, "us")
    print(f"  a request and its reply over pipes, CPU: placed by the kernel {free}; "
          f"both on one CPU {pinned}")
    print(f"  medians of {options.repeat} (range); load average after {load()}")


if __name__ == "__main__":
    main()
