"""What a Lisp agent's game costs in its SBCL host: the game processes' CPU and page faults,
and what the zygote they are forked from has mapped and touched.

    python benchmarks/sbcl_game_cost.py [--games N] [--turns T] [--isolation sandbox|process]
                                        [AGENT_FILE]

A real host (lisp_bridge/sbcl_host.lisp) serves a real agent file (default: the bundled
BrownChen.lisp) through the real handle; N games of T turns are played against a built-in
in the monitor. The zygote (the host process that forks a child per game) is found in
/proc below this process, and its /proc/PID/stat read before and after the games: the
children's fields (cutime, cstime, cminflt) grow as the zygote reaps each game's process,
so their difference over N is what one game's process cost, fork and exit included; the
zygote's own fields give its side (forking, reaping). Also printed: the zygote's memory as
the kernel sees it (/proc/PID/smaps_rollup: RSS, anonymous, private dirty), which fork
copies page tables for and exit tears down, the mapping that holds most of it, and its RSS
after the games (a zygote that grows makes every later fork dearer).

CPU time, not wall time, is measured (the machine may be shared); the load is printed.
Run it on two checkouts side by side with compare_commits.py.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TICK = os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as text:
                found += [int(word) for word in text.read().split()]
        except OSError:
            pass
    return found


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as text:
            return text.read().strip()
    except OSError:
        return ""


def find_zygote() -> int:
    """The SBCL process whose sbcl children have no children: the zygote (its child is
    the next game's process, waiting for its GAME)."""
    todo, sbcls = [os.getpid()], []
    while todo:
        pid = todo.pop()
        for child in children_of(pid):
            todo.append(child)
            if comm(child) == "sbcl":
                sbcls.append(child)
    for pid in sbcls:
        kids = [kid for kid in children_of(pid) if comm(kid) == "sbcl"]
        if kids and all(not children_of(kid) for kid in kids):
            return pid
    raise SystemExit(f"no SBCL zygote found below this process (sbcl processes: {sbcls})")


def stat(pid: int) -> dict[str, float]:
    with open(f"/proc/{pid}/stat") as text:
        fields = text.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state): field n is fields[n - 3]
    return {"minflt": int(fields[7]), "cminflt": int(fields[8]),
            "utime": int(fields[11]) / TICK, "stime": int(fields[12]) / TICK,
            "cutime": int(fields[13]) / TICK, "cstime": int(fields[14]) / TICK}


def memory(pid: int) -> dict[str, int]:
    """kB figures of smaps_rollup, and the largest mapping's RSS."""
    figures = {}
    with open(f"/proc/{pid}/smaps_rollup") as text:
        for line in text:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                figures[parts[0].rstrip(":")] = int(parts[1])
    biggest, name, current = 0, "", ""
    with open(f"/proc/{pid}/smaps") as text:
        for line in text:
            parts = line.split()
            if parts and "-" in parts[0] and not parts[0].endswith(":"):
                current = f"{parts[0]} {' '.join(parts[5:]) or '[anon]'}"
            elif parts and parts[0] == "Rss:" and int(parts[1]) > biggest:
                biggest, name = int(parts[1]), current
    figures["biggest"], figures["biggest_name"] = biggest, name  # type: ignore[assignment]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--isolation", default="sandbox", choices=["sandbox", "process"])
    parser.add_argument("agent", nargs="?", type=Path,
                        default=ROOT / "student_agents" / "BrownChen.lisp")
    options = parser.parse_args()

    from harness.agents.specs import builtin_spec, file_spec
    from harness.core.rules import GameParams
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle

    print(f"load average {os.getloadavg()[0]:.1f}; {options.agent.name}, {options.games} "
          f"games of {options.turns} turns, {options.isolation}", flush=True)
    opponent = open_handle(builtin_spec("titfortat"), Isolation("none"))
    handle = open_handle(file_spec(options.agent.resolve()), Isolation(options.isolation, 10.0))
    try:
        for game in range(3):   # warm: the first games fault in what every game shares
            play_game(handle, opponent, options.turns, game, GameParams())
        zygote = find_zygote()
        before, mem = stat(zygote), memory(zygote)
        began = time.perf_counter()
        for game in range(options.games):
            play_game(handle, opponent, options.turns, game, GameParams())
        wall = time.perf_counter() - began
        after, mem_after = stat(zygote), memory(zygote)
    finally:
        handle.close()
    games = options.games
    child_cpu = (after["cutime"] + after["cstime"] - before["cutime"] - before["cstime"]) / games
    child_sys = (after["cstime"] - before["cstime"]) / games
    own_cpu = (after["utime"] + after["stime"] - before["utime"] - before["stime"]) / games
    faults = (after["cminflt"] - before["cminflt"]) / games
    own_faults = (after["minflt"] - before["minflt"]) / games
    print(f"a game's process: {child_cpu * 1000:.2f} ms CPU ({child_sys * 1000:.2f} ms "
          f"system), {faults:.0f} minor faults", flush=True)
    print(f"the zygote per game: {own_cpu * 1000:.2f} ms CPU, {own_faults:.0f} minor faults",
          flush=True)
    print(f"the zygote's memory: RSS {mem['Rss'] / 1024:.1f} MiB, anonymous "
          f"{mem['Anonymous'] / 1024:.1f} MiB, private dirty "
          f"{mem['Private_Dirty'] / 1024:.1f} MiB; largest mapping {mem['biggest'] / 1024:.1f} "
          f"MiB ({mem['biggest_name']}); after the games RSS {mem_after['Rss'] / 1024:.1f} MiB, "
          f"anonymous {mem_after['Anonymous'] / 1024:.1f} MiB", flush=True)
    print(f"wall {wall / games * 1000:.2f} ms a game", flush=True)


if __name__ == "__main__":
    main()
