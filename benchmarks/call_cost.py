"""What one call costs: CPU time of the monitor and of the agent's host, per call, for a
Python agent with a short history (the target: "a call at most 25 us of CPU, monitor and host
together").

    python benchmarks/call_cost.py                          # process and sandbox
    python benchmarks/call_cost.py --isolation process --agents 10 --turns 30 --repeat 3
    python benchmarks/call_cost.py --runner serial          # one game at a time

N renamed copies of student_agents/KhosmoodLevinson.py (generous tit for tat, 3 moves a
turn) play round robins against each other, as a tournament plays them: one handle pool,
the pipelined runner (`--runner pipelined`, what `--jobs 2` uses with agents in processes)
or one game at a time (`--runner serial`, what `play` and `validate` do). Each repeat
plays `--rounds` round robins of one-turn games and as many of (1 + `--turns`)-turn games;
the difference of the two CPU totals, divided by the calls the longer games make more
(games x turns x 2), is what a call costs beyond the game's start and end. The history
an agent is called with is at most `--turns` turns long: short, as in a class's games.

CPU time is read on both sides of each batch of games:
- the monitor: getrusage(RUSAGE_SELF) of this process, which plays the games (the game
  loop, the handles' pipes and waits, every thread);
- the hosts: everything else of a cpuacct cgroup (v1) this process moves itself into at
  the start, so every process it starts (the zygotes, bubblewrap, each game's process) is
  counted, in nanoseconds, whoever reaps it, and a host retired or replaced mid-run (its
  CPU time limit near) is counted too. Where no such group can be made: utime + stime +
  cutime + cstime from /proc/PID/stat of every live process below this one, which counts a
  game's process once its zygote reaps it, in clock ticks, but loses a host that ends (a
  batch where the hosts changed is then said so: its figure is not to be read).
Read once every host has ended its last game (a short pause).
The median of `--repeat` repeats is printed, with the load average (the machine may be
shared: CPU time, not wall time, is measured). A fault (a call past its limit, which
should not happen at the default 10 s) is printed: a run with faults is not the workload.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import runpy
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))   # floor.py, when run by compare_commits.py

from floor import idle_policy, ratio, round_trip_us  # noqa: E402 - beside this script

from harness.agents.specs import file_spec  # noqa: E402
from harness.core.rules import GameParams  # noqa: E402
from harness.engine.rounds import round_robin  # noqa: E402
from harness.engine.runners import HandlePool, PipelinedRunner, SerialRunner  # noqa: E402
from harness.isolation.handles.opening import Isolation  # noqa: E402

STUDENT = ROOT / "student_agents" / "KhosmoodLevinson.py"
TICK = os.sysconf("SC_CLK_TCK")
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
RUNNERS = {"pipelined": PipelinedRunner, "serial": SerialRunner}


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def write_copies(folder: Path, count: int) -> list[Path]:
    """`count` copies of the student, each renamed (file and function) KhosmoodLevinsonXab."""
    old = STUDENT.stem
    paths = []
    for index in range(count):
        new = f"{old}X{LETTERS[index // 26 % 26]}{LETTERS[index % 26]}"
        path = folder / f"{new}.py"
        path.write_text(re.sub(rf"\b{old}\b", new, STUDENT.read_text()))
        paths.append(path)
    return paths


def monitor_cpu() -> tuple[float, float]:
    """(user, system) CPU seconds of this process."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime, own.ru_stime


class Accounting:
    """The hosts' CPU seconds: a cpuacct group holding this process and all it starts
    (less this process's own time), else the live process tree below it."""

    def __init__(self):
        group_class = runpy.run_path(str(ROOT / "benchmarks" / "class.py"))["CpuGroup"]
        self.group = group_class()
        self.home = None
        if self.group.path is not None:
            self.home = _own_cpuacct_group()
            self.group.join()   # this process: what it starts from now on is in the group too

    def hosts(self) -> float:
        if self.group.path is None:
            return hosts_cpu()
        user, system = monitor_cpu()
        return self.group.cpu()[0] - user - system

    def host_pids(self) -> set[int]:
        from harness.isolation.process_tree import children

        return set(children(os.getpid()))

    def close(self) -> None:
        if self.group.path is not None and self.home is not None:
            (self.home / "cgroup.procs").write_text(str(os.getpid()))
            self.group.remove()


def _own_cpuacct_group() -> Path | None:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            return CPUACCT / path.lstrip("/")
    return None


def hosts_cpu() -> float:
    """CPU seconds of every live process below this one, and of those they reaped."""
    from harness.isolation.process_tree import descendants

    total = 0
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue   # ended since it was listed (a game's process, reaped: counted above)
        total += sum(int(value) for value in fields[11:15])   # utime stime cutime cstime
    return total / TICK


def play(runner, jobs, accounting) -> tuple[float, float, float, int, bool]:
    """(the monitor's user and system CPU seconds, the hosts' CPU seconds, faults, whether
    the hosts changed) for one batch of games."""
    time.sleep(0.3)   # every host's last END answered: its game's process reaped
    pids = accounting.host_pids()
    hosts, (user, system) = accounting.hosts(), monitor_cpu()
    records = runner.play(jobs)
    user_after, system_after = monitor_cpu()
    time.sleep(0.3)
    hosts = accounting.hosts() - hosts
    return (user_after - user, system_after - system, hosts,
            sum(len(record.fault_at) for record in records), pids != accounting.host_pids())


def round_robins(names, rounds: int, length: int) -> list:
    return [job for number in range(rounds)
            for job in round_robin(names, number + 1, length, tournament_seed=number)]


def measure(isolation: str, options, accounting: Accounting, floor: float) -> None:
    with tempfile.TemporaryDirectory(prefix="pdbench-call-") as folder:
        specs = [file_spec(path) for path in write_copies(Path(folder), options.agents)]
        names = [spec.name for spec in specs]
        pool = HandlePool(specs, Isolation(isolation, timeout=options.timeout))
        broken = pool.open_all()
        if broken:
            raise SystemExit(f"agents did not load: {broken}")
        runner = RUNNERS[options.runner](pool, GameParams())
        try:
            play(runner, round_robins(names, 1, 2), accounting)   # warm: every host played
            short = round_robins(names, options.rounds, 1)
            long = round_robins(names, options.rounds, 1 + options.turns)
            calls = len(long) * options.turns * 2
            per_call: dict[str, list[float]] = {
                "total": [], "monitor": [], "user": [], "system": [], "host": []}
            faults = changed = 0
            for _ in range(options.repeat):
                *short_cpu, faults_short, changed_short = play(runner, short, accounting)
                *long_cpu, faults_long, changed_long = play(runner, long, accounting)
                faults += faults_short + faults_long
                changed += changed_short or changed_long
                user, system, host = ((b - a) / calls * 1e6 for a, b in zip(short_cpu, long_cpu, strict=True))
                for part, value in (("total", user + system + host), ("monitor", user + system),
                                    ("user", user), ("system", system), ("host", host)):
                    per_call[part].append(value)
        finally:
            runner.close()
    median = {part: statistics.median(values) for part, values in per_call.items()}
    print(f"{isolation:8} {options.runner}: a call {median['total']:.1f} us CPU = monitor "
          f"{median['monitor']:.1f} (user {median['user']:.1f}, system {median['system']:.1f})"
          f" + host {median['host']:.1f}; floor {floor:.1f} us (a pipe round trip on one "
          f"CPU, floor.py), {ratio(median['total'], floor)} (target 5x)", flush=True)
    print(f"    median of {options.repeat} ({', '.join(f'{v:.1f}' for v in per_call['total'])}"
          f" us), {calls} calls more a repeat, faults {faults}; load average after: {load()}",
          flush=True)
    if changed:
        what = ("counted all the same (a cgroup)" if accounting.group.path is not None
                else "NOT counted: do not read the host's figure")
        print(f"    hosts started or ended during {changed} of the repeats: {what}; "
              f"load average after: {load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isolation", nargs="*", default=["process", "sandbox"])
    parser.add_argument("--runner", choices=sorted(RUNNERS), default="pipelined")
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--turns", type=int, default=30,
                        help="turns the longer games have more than the one-turn games")
    parser.add_argument("--rounds", type=int, default=4, help="round robins a batch")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds a call")
    options = parser.parse_args()
    print(f"load average before: {load()}; {os.cpu_count()} cores ({idle_policy()})", flush=True)
    floor = round_trip_us()   # before the cgroup: its CPU is no host's
    print(f"the floor: a request and its reply over pipes, both on one CPU, {floor:.1f} us "
          f"CPU; load average: {load()}", flush=True)
    accounting = Accounting()
    print(f"the hosts' CPU time from {'a cpuacct cgroup' if accounting.group.path else '/proc/PID/stat'}"
          f"; load average: {load()}", flush=True)
    try:
        for isolation in options.isolation:
            measure(isolation, options, accounting, floor)
    finally:
        accounting.close()


if __name__ == "__main__":
    main()
