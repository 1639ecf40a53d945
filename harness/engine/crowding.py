"""Whether the machine has room for one more game, for a runner that plays many at once.

The pipelined runner (harness/engine/runners.py) could start every game whose agents are
free: half the agents' worth. A game's processes load, think and exit in bursts of CPU, so
a 360-agent round of one-turn games on 2 cores had about 300 tasks ready to run at once,
and a call waited for a CPU longer than its own time gives back (OWN_TIME_CAP,
harness/isolation/own_time.py): honest agents were charged timeouts (12 in 64,620 games).
The runner must not crowd the machine past what the time limit forgives.

So past a floor of games in flight (GAMES_PER_CPU: enough to keep every CPU busy while
agents think), another game starts only while the tasks ready to run number at most
RUNNABLE_PER_CPU per CPU, counting the CPUs this process may run on. A game whose agents
sleep, or wait on a model served by another machine, holds no CPU and holds no other game
back. The count is the kernel's at this instant (/proc/loadavg's fourth field), over the
whole machine: other programs' load holds games back too, a model served on this machine
among them, as it slows the calls. Where it cannot be read, nothing is held back.
"""
from __future__ import annotations

import os

GAMES_PER_CPU = 2
RUNNABLE_PER_CPU = 4
_LOADAVG = "/proc/loadavg"


class Crowding:
    def __init__(self, cpus: int | None = None):
        self.cpus = cpus or _usable_cpus()
        self.readable = True

    def room_for_another(self, in_flight: int) -> bool:
        """Whether a runner with `in_flight` games running may start one more now."""
        if in_flight < GAMES_PER_CPU * self.cpus or not self.readable:
            return True
        runnable = self.runnable_tasks()
        return runnable is None or runnable <= RUNNABLE_PER_CPU * self.cpus

    def runnable_tasks(self) -> int | None:
        """Tasks ready to run on the machine now (the kernel's count, this process's thread
        among them); None, and never asked again, where /proc does not say."""
        try:
            with open(_LOADAVG, "rb") as loadavg:
                return int(loadavg.read(128).split()[3].split(b"/")[0])
        except (OSError, ValueError, IndexError):
            self.readable = False
            return None


def _usable_cpus() -> int:
    """The CPUs this process may run on: its affinity (a taskset's or a cpuset's), not the
    machine's count. A CPU quota (cgroup cpu.max) is not counted."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except OSError:
        return os.cpu_count() or 1
