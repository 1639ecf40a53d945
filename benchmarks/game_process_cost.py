"""Where a game's process spends its CPU: each phase of its life, and its page faults.

    python benchmarks/game_process_cost.py [--games N] [AGENT_FILE ...]

A game's process (harness/isolation/host.py) is forked from its agent's zygote, builds its
world (harness/isolation/world.py: PID and mount namespaces, a new /tmp and /dev/shm),
installs the game's seccomp filter where the monitor gave one, runs the agent's module
anew, plays, and exits. This script does the same, in this process made a zygote (the
same `Agent`, `World` and imports as a host's, no monitor and no pipes), for N games of 30
turns each, and prints per game:

- CPU time of each phase inside the child (`time.process_time`, read by the child):
  world built, runtime started (the module run anew, its first touches of the zygote's
  memory), 30 calls;
- the child's whole CPU (fork's and exit's kernel work included: getrusage of reaped
  children), and the zygote's own CPU per game (its side of fork and reaping);
- the child's minor page faults: nearly all copy-on-write copies of the zygote's pages
  that the game touched (Python's reference counts write to every object it uses).

Without a monitor or pipes it shows the game's process alone: class.py and cpu_split.py
show the whole run. Needs user namespaces (as the sandbox does). Default agents: the
bundled Python and Hy students. CPU time, not wall time, is measured: a shared machine
distorts it least; say the load (`uptime`) beside it.
"""
from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TURNS = 30


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("agents", nargs="*", type=Path,
                        default=[ROOT / "student_agents" / "KhosmoodLevinson.py",
                                 ROOT / "student_agents" / "GarciaHoffman.hy"])
    options = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {options.games} games of {TURNS} turns each",
          flush=True)
    for path in options.agents:
        pid = os.fork()   # each agent's zygote in a process of its own, as a host is
        if pid == 0:
            try:
                measure(path.resolve(), options.games)
            finally:
                sys.stdout.flush()
                os._exit(0)
        os.waitpid(pid, 0)


def measure(path: Path, games: int) -> None:
    from harness.agents.lang import BY_SUFFIX
    from harness.core.rules import Payoffs
    from harness.isolation import host, world as worlds
    from harness.isolation.seccomp import game_filter

    agent = host.Agent(BY_SUFFIX[path.suffix].name, str(path), path.stem)
    compiled = agent.prepare()
    world = worlds.enter()
    if world is None:
        sys.exit("no user namespace here: a game's world cannot be built")
    install_filter = game_filter()
    gc.freeze()
    phases, faults = [], []
    own_before, children_before = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    for game in range(games):
        read_end, write_end = os.pipe()
        child = world.fork()
        if child == 0:
            os.close(read_end)
            marks = [time.process_time()]
            world.build()
            if install_filter is not None:
                install_filter()
            marks.append(time.process_time())
            runtime = agent.runtime(compiled)
            runtime.start_game(game, 3, Payoffs(5, 3, 1, 0))
            marks.append(time.process_time())
            runtime.call()
            for _ in range(TURNS - 1):
                runtime.record("CCD", "DCC")
                runtime.call()
            marks.append(time.process_time())
            own_faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            os.write(write_end, " ".join(map(str, [*marks, own_faults])).encode())
            os._exit(0)
        os.close(write_end)
        marks = [float(word) for word in os.read(read_end, 4096).split()]
        os.close(read_end)
        world.end()
        phases.append([marks[1] - marks[0], marks[2] - marks[1], marks[3] - marks[2]])
        faults.append(marks[4])
    own = (_cpu(resource.RUSAGE_SELF) - own_before) / games
    child = (_cpu(resource.RUSAGE_CHILDREN) - children_before) / games
    build, start, calls = (statistics.mean(column) * 1000 for column in zip(*phases, strict=True))
    print(f"{path.name}: a game's process {child * 1000:.2f} ms CPU in all "
          f"(world {build:.2f}, runtime started {start:.2f}, {TURNS} calls {calls:.2f}; "
          f"the rest is fork and exit), {statistics.mean(faults):.0f} page faults; "
          f"the zygote {own * 1000:.2f} ms a game", flush=True)


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
