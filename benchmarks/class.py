"""The instructor's workload: a class-sized mixed-language tournament, through the real command.

    python benchmarks/class.py                        # 40 agents, sandbox, --jobs 2, seed 1
    python benchmarks/class.py --agents 20 --isolation process
    python benchmarks/class.py --repo /tmp/before --repo . --runs 3   # two checkouts, interleaved
    python benchmarks/class.py --round360 --max-seconds 600           # the 360-agent round
    python benchmarks/class.py --references                          # beside Axelrod and the floor

N renamed copies of the bundled students (student_agents/: Python, Hy and Common Lisp in
turn; each copy a valid agent file whose file name and function name match, its helpers
renamed alike) are written to a temporary folder, and `python -m harness tournament` plays
them under the default rules (3 moves a turn, lengths 10-50, flips .25/.1, 1 s a call),
`--isolation sandbox`, `--jobs 2` and a fixed `--seed`, as an instructor would run it.
Printed per run: wall time; CPU time of the monitor and every process it started (read
from a cpuacct cgroup made for the run, so the sandbox's and the games' processes count
even when nobody reaps them; where no cgroup can be made, what `wait4` hands on, which
misses the processes bubblewrap's PID namespace reaps itself); games, turns, games/s, CPU
per game; the faults the agents were charged (a loaded machine makes honest agents miss
their 1 s deadline: a result with faults is not the workload's), and any agent that did
not load (a host that misses its 30 s start limit on a very loaded machine); the summed
PSS of the monitor and its agents' processes, sampled every `--sample` seconds from
/proc/PID/smaps_rollup (peak and median; less often when a sample would take more than 2%
of a core: it reads every process's page tables); and the load average before and after.

`--repo PATH` runs another checkout's code (its `harness`, first on PYTHONPATH) with this
script's interpreter, or `--python PATH` (e.g. that checkout's venv); give `--repo` twice
(or more) to compare checkouts: the runs alternate A B B A A B ... so a load that drifts
weighs on both alike, and the medians per checkout are printed at the end. The default
repo is the one whose `harness` is imported, so `compare_commits.py --script
benchmarks/class.py` also works.

The agents' cache is $PDHARNESS_CACHE, else a folder every user may read, kept between
runs (`readable_cache`): under a root monitor, as on our machines, hosts that cannot read
root's own cache play their games without worlds.

`--round360`: one round of 360 agents (40 copies of each
student), 64,620 one-turn games, `--isolation process` unless given, `ulimit -n 20000`.
With `--max-seconds S` (for any run) the tournament is stopped after S seconds and the
games done so far are printed (read from the progress bar, so stderr is a terminal then).
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import resource
import signal
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))   # floor.py and throughput.py, beside this one

from floor import game_process_ms, hy_game_process_ms, idle_policy, round_trip_us  # noqa: E402 - beside this script

STUDENTS = ROOT / "student_agents"
KINDS = (".py", ".hy", ".lisp")
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
TICK = os.sysconf("SC_CLK_TCK")
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def default_repo() -> Path:
    """The checkout whose `harness` this process imports (compare_commits.py --script
    imports the folder's before running us); else this script's own checkout."""
    module = sys.modules.get("harness")
    if module is not None and getattr(module, "__file__", None):
        return Path(module.__file__).resolve().parent.parent
    return ROOT


# -- the agents ---------------------------------------------------------------------------

def student_files() -> list[Path]:
    """The bundled students, the languages interleaved (py, hy, lisp, py, ...)."""
    by_kind = [sorted(p for p in STUDENTS.iterdir()
                      if p.suffix == kind and not p.name.startswith("_")) for kind in KINDS]
    rows = itertools.zip_longest(*by_kind)
    return [path for row in rows for path in row if path is not None]


def write_copies(folder: Path, count: int) -> list[Path]:
    """`count` agent files (at most 676), copies of the students in turn, each renamed
    `<Name>Xab` (letters only, as `pdharness validate` wants a name): the name is replaced
    wherever it appears (the function, and the helpers it prefixes)."""
    students = student_files()
    paths = []
    for index in range(count):
        source = students[index % len(students)]
        old = source.stem
        new = f"{old}X{LETTERS[index // 26 % 26]}{LETTERS[index % 26]}"
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(old)}(?![A-Za-z0-9])", new,
                      source.read_text())
        path = folder / f"{new}{source.suffix}"
        path.write_text(text)
        paths.append(path)
    return paths


# -- measuring a process tree ---------------------------------------------------------------

class CpuGroup:
    """A cpuacct cgroup (v1) for one run: every process the monitor starts stays in it."""

    def __init__(self):
        self.path = None
        if not (CPUACCT / "cgroup.procs").exists():
            return
        path = CPUACCT / f"pdbench-{os.getpid()}-{time.monotonic_ns()}"
        try:
            path.mkdir()
        except OSError:
            return
        self.path = path

    def join(self) -> None:
        """In the child, before exec (preexec_fn): move this process into the group."""
        if self.path is not None:
            (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def pids(self) -> list[int]:
        """Every process in the group and in the groups below it: the monitor puts each
        host in a group of its own under its own (harness/isolation/cgroups.py)."""
        if self.path is None:
            return []
        found = []
        for folder, _, _ in os.walk(self.path):
            try:
                found += [int(x) for x in Path(folder, "cgroup.procs").read_text().split()]
            except OSError:   # a host's group removed meanwhile
                continue
        return found

    def cpu(self) -> tuple[float, float, float] | None:
        """(total, user, system) seconds, or None without a group."""
        if self.path is None:
            return None
        total = int((self.path / "cpuacct.usage").read_text()) / 1e9
        stat = dict(line.split() for line in (self.path / "cpuacct.stat").read_text().splitlines())
        return total, int(stat["user"]) / TICK, int(stat["system"]) / TICK

    def remove(self) -> None:
        if self.path is None:
            return
        for _ in range(50):  # killed sandboxes may take a moment to leave
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.1)


def descendants(root: int) -> list[int]:
    """root and every process below it (from /proc's parent links): for runs without a group."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(text.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


SAMPLER_SHARE = 50   # the sampler waits at least this many times what a sample took


class MemorySampler(threading.Thread):
    """Sums the PSS of the run's processes every `every` seconds until stopped."""

    def __init__(self, group: CpuGroup, root: int, every: float):
        super().__init__(daemon=True)
        self.group, self.root, self.every = group, root, every
        self.sums: list[int] = []
        self.counts: list[int] = []
        self.done = threading.Event()

    def run(self) -> None:
        pause = self.every
        while not self.done.wait(pause):
            began = time.thread_time()
            pids = self.group.pids() or descendants(self.root)
            self.sums.append(sum(pss_kib(pid) for pid in pids))
            self.counts.append(len(pids))
            # a sample reads every process's page tables (a 360-agent round: over 1,000
            # processes, a third of a core at every 0.5 s): at most 2% of a core, so the
            # sampler does not take the CPU the run is measured on
            pause = max(self.every, (time.thread_time() - began) * SAMPLER_SHARE)


# -- one run ----------------------------------------------------------------------------------

PROGRESS = re.compile(rb"games (\d+)/")


def readable_cache() -> str:
    """The agents' cache the runs share ($PDHARNESS_CACHE if set): a folder every user may
    read, kept between runs (its compiled Hy and Lisp are not part of a run's figures).
    A root monitor's hosts run as users of their own, and where they cannot read the
    cache (root's own, under /root) they keep root's right to read, and their games are
    then plain forks, not worlds (harness/isolation/process_launch.py): not what an
    instructor is told to run (docs/security.md), so not what is measured."""
    if "PDHARNESS_CACHE" in os.environ:
        return os.environ["PDHARNESS_CACHE"]
    cache = Path(tempfile.gettempdir()) / "pdharness-bench-cache"
    cache.mkdir(mode=0o755, exist_ok=True)
    # in a shared temporary folder: compiled code another user left there would run here
    found = cache.lstat()
    if (not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid()
            or found.st_mode & 0o022):
        sys.exit(f"class.py: {cache} is not a folder of this user's that only it may write: "
                 "remove it, or set PDHARNESS_CACHE")
    return str(cache)


def tournament_command(options, python: str, folder: Path) -> list[str]:
    length = ["1", "1"] if options.round360 else ["10", "50"]
    command = [python, "-m", "harness", "tournament", str(folder),
               "--seed", str(options.seed), "--isolation", options.isolation,
               "--jobs", str(options.jobs), "--flip", "0.25", "0.1", "--length", *length,
               "--moves-per-turn", "3", "--format", "json"]
    if options.round360:
        command += ["--max-rounds", "1"]
    return command


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_once(options, repo: Path, python: str, folder: Path) -> dict:
    command = tournament_command(options, python, folder)
    environment = dict(os.environ, PYTHONPATH=str(repo), PDHARNESS_CACHE=readable_cache())
    group = CpuGroup()
    files = 20000 if options.round360 else None

    def prepare() -> None:
        group.join()
        if files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    stopped = options.max_seconds is not None
    progress_reader = None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        if stopped:  # the progress bar is drawn only on a terminal: give it one
            import pty

            leader, follower = pty.openpty()
            stderr = follower
        else:
            stderr = err
        before = load()
        began = time.perf_counter()
        process = subprocess.Popen(command, cwd=repo, env=environment, stdout=out,
                                   stderr=stderr, stdin=subprocess.DEVNULL,
                                   preexec_fn=prepare, start_new_session=True)
        if stopped:
            os.close(follower)
            seen = bytearray()

            def drain() -> None:
                while True:
                    try:
                        chunk = os.read(leader, 65536)
                    except OSError:
                        return
                    if not chunk:
                        return
                    seen.extend(chunk)
                    del seen[:-200000]

            progress_reader = threading.Thread(target=drain, daemon=True)
            progress_reader.start()
        sampler = MemorySampler(group, process.pid, options.sample)
        sampler.start()
        timed_out, deadline = False, (began + options.max_seconds if stopped else None)
        stopped_at = None
        try:
            while True:  # wait4, not Popen.wait: its rusage is the tree's reaped CPU
                pid, status, usage = os.wait4(process.pid, os.WNOHANG if stopped else 0)
                if pid:
                    break
                if deadline is not None and time.perf_counter() > deadline:
                    timed_out, deadline = True, None
                    stopped_at = time.perf_counter() - began
                    os.killpg(process.pid, signal.SIGINT)  # the monitor's own clean stop
                    killer = threading.Timer(30, _kill_group, (process.pid,))
                    killer.daemon = True
                    killer.start()
                time.sleep(0.2)
        except KeyboardInterrupt:  # the monitor runs in a session of its own: stop it too
            _kill_group(process.pid)
            process.wait()
            group.remove()
            raise
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - began
        sampler.done.set()
        sampler.join()
        cpu = group.cpu()
        group.remove()
        after = load()
        out.seek(0)
        err.seek(0)
        stdout, error = out.read(), err.read()
    figures = {"wall": wall, "load_before": before, "load_after": after,
               "wait4_cpu": usage.ru_utime + usage.ru_stime,
               "cgroup_cpu": cpu, "pss_peak": max(sampler.sums, default=0) / 1024,
               "pss_median": statistics.median(sampler.sums) / 1024 if sampler.sums else 0,
               "processes_peak": max(sampler.counts, default=0), "timed_out": timed_out,
               "exit": process.returncode, "stopped_at": stopped_at}
    if stopped:
        progress_reader.join(1)
        os.close(leader)
        matches = PROGRESS.findall(bytes(seen))
        figures["games_seen"] = int(matches[-1]) if matches else 0
        figures["games_planned"] = options.agents * (options.agents - 1) // 2
    if not timed_out:
        if process.returncode != 0:
            sys.exit(f"the tournament failed (exit {process.returncode}): "
                     f"{' '.join(command)}\n{error.decode(errors='replace')[-3000:]}")
        result = json.loads(stdout)
        lengths = {r["round"]: r["game_length"] for r in result["rounds"]}
        figures["games"] = len(result["games"])
        figures["turns"] = sum(lengths[g["round"]] for g in result["games"])
        figures["host_games"], figures["host_calls"] = python_host_work(
            result["games"], lengths, folder)
        figures["rounds"] = len(result["rounds"])
        figures["faults"] = {kind: sum(s["faults"][kind] for s in result["standings"])
                             for kind in ("invalid", "exception", "timeout", "crash")}
        figures["winner"] = result["standings"][0]["agent"]
        figures["not_ok"] = [(a["name"], a["status"], a["message"]) for a in result["agents"]
                             if a["status"] != "ok"]
    return figures


def python_host_work(played: list[dict], lengths: dict[int, int],
                     folder: Path) -> tuple[dict[str, int], int]:
    """What the run's Python and Hy agents asked of their hosts in the games `played`
    (`lengths`: turns a game, by round): agent-games by kind (.py, .hy), and calls (one a
    turn). A Lisp agent plays in an SBCL process under `--isolation none` too, so its
    processes and calls are in that run's figure already."""
    kind_of = {path.stem: path.suffix for path in folder.iterdir()}
    games = dict.fromkeys((".py", ".hy"), 0)
    calls = 0
    for game in played:
        for name in (game["a"], game["b"]):
            kind = kind_of.get(name)
            if kind in games:
                games[kind] += 1
                calls += lengths[game["round"]]
    return games, calls


def report(label: str, figures: dict) -> None:
    cpu = figures["cgroup_cpu"]
    cpu_total = cpu[0] if cpu else figures["wait4_cpu"]
    print(f"{label}: load average {figures['load_before']} -> {figures['load_after']}")
    if figures["timed_out"]:
        seen = figures["games_seen"]
        print(f"  stopped after {figures['stopped_at']:.1f} s (--max-seconds; it took "
              f"{figures['wall']:.1f} s to end): {seen} games done"
              + (f" of {figures['games_planned']:,} in round 1" if figures["games_planned"]
                 else ""))
        if seen and figures["games_planned"]:
            rate = seen / figures["stopped_at"]
            print(f"  {rate:.1f} games/s from the start (host starts included): the round "
                  f"would take about {figures['games_planned'] / rate:.0f} s at that rate")
    else:
        games, turns = figures["games"], figures["turns"]
        faults = ", ".join(f"{k} {v}" for k, v in figures["faults"].items())
        print(f"  {figures['rounds']} rounds, {games} games, {turns} turns; "
              f"faults: {faults}; winner {figures['winner']}")
        for name, status, message in figures["not_ok"]:
            print(f"  NOT THE WORKLOAD: {name} {status}: {message}")
        print(f"  wall {figures['wall']:.2f} s, {games / figures['wall']:.1f} games/s, "
              f"{turns / figures['wall']:.0f} turns/s")
    if cpu:
        print(f"  CPU {cpu[0]:.2f} s (user {cpu[1]:.2f}, system {cpu[2]:.2f}; cpuacct "
              f"cgroup, every process); wait4 handed on {figures['wait4_cpu']:.2f} s")
    else:
        print(f"  CPU {cpu_total:.2f} s (wait4: reaped processes only)")
    if not figures["timed_out"]:
        print(f"  CPU per game {cpu_total / figures['games'] * 1000:.2f} ms, "
              f"{cpu_total / figures['wall']:.2f} cores busy on average")
    print(f"  PSS summed over the monitor and its agents: peak {figures['pss_peak']:.0f} MiB, "
          f"median {figures['pss_median']:.0f} MiB ({figures['processes_peak']} processes "
          f"at most)", flush=True)


class References:
    """`--references`: what the class's speed targets compare it with, measured in the same
    run as it: Axelrod's `Tournament.play` on its own workload (throughput.py's reference,
    serial, in a process of its own, before the first run and after the last) and the floor
    of a game: the same tournament's CPU a game under `--isolation none` (the agents' own
    code and the monitor's game, no process; its Lisp agents keep theirs, so their
    processes and calls are in it), plus what the least isolation adds to it (floor.py):
    an empty game process of a Python host for each Python agent-game (of a Hy host, Hy
    imported, for each Hy one), and their calls at a one-CPU pipe round trip each."""

    ROUND_TARGET_SECONDS = 210   # the 360-agent round in at most 3.5 minutes

    def __init__(self):
        from throughput import Axelrod  # Axelrod's harness only with --references

        self.axelrod = Axelrod()
        self.axelrod_seconds = [self.axelrod.seconds("tournament", 200)]
        self.none_ms: dict[Path, float] = {}   # per checkout: its own code's floor
        self.process_ms = {".py": game_process_ms(), ".hy": hy_game_process_ms()}
        self.round_trip_us = round_trip_us()
        print(f"references: Axelrod's Tournament {self.axelrod_seconds[0]:.2f} s; an empty game "
              f"process {self.process_ms['.py']:.2f} ms (a Hy host's "
              f"{self.process_ms['.hy']:.2f}), a one-CPU pipe round trip "
              f"{self.round_trip_us:.2f} us; {load()}", flush=True)

    def finish(self) -> None:
        self.axelrod_seconds.append(self.axelrod.seconds("tournament", 200))
        self.axelrod.close()
        print(f"references: Axelrod's Tournament again {self.axelrod_seconds[1]:.2f} s; "
              f"{load()}")

    def measure_unisolated(self, options, repo: Path, python: str, folder: Path) -> None:
        unisolated = argparse.Namespace(**{**vars(options), "isolation": "none",
                                           "max_seconds": None})
        figures = run_once(unisolated, repo, python, folder)
        self.none_ms[repo] = (figures["cgroup_cpu"] or (figures["wait4_cpu"],))[0] / max(
            figures["games"], 1) * 1000
        print(f"references: {repo} --isolation none {self.none_ms[repo]:.2f} ms of CPU a game "
              f"({figures['games']} games, wall {figures['wall']:.1f} s); {load()}", flush=True)

    def game_floor_ms(self, figures: dict, repo: Path) -> float:
        processes = sum(count * self.process_ms[kind]
                        for kind, count in figures["host_games"].items())
        calls = figures["host_calls"] * self.round_trip_us / 1000
        return self.none_ms[repo] + (processes + calls) / figures["games"]

    def beside(self, figures: dict, repo: Path, round360: bool = False) -> str:
        """The run's wall beside Axelrod's (the round's: beside its target), its CPU a game
        beside its floor; "" for a run stopped before its end."""
        if figures["timed_out"] or not figures["games"]:
            return ""
        cpu = (figures["cgroup_cpu"] or (figures["wait4_cpu"],))[0]
        floor = self.game_floor_ms(figures, repo)
        unisolated = self.none_ms[repo]
        per_game = cpu / figures["games"] * 1000
        axelrod = statistics.median(self.axelrod_seconds)
        # the least wall the floor allows: every game at its floor, every core busy all along
        cores = os.cpu_count() or 1
        floor_wall = figures["games"] * floor / 1000 / cores
        against = (f"{figures['wall'] / axelrod:.1f}x Axelrod's Tournament ({axelrod:.2f} s, "
                   "median of the runs before and after: target 25x)")
        at_floor = f"{floor_wall / axelrod:.1f}x Axelrod's Tournament"
        if round360:
            target = self.ROUND_TARGET_SECONDS
            against = (f"wall {figures['wall']:.1f} s, {figures['wall'] / target:.2f}x the "
                       f"round's target ({target} s)")
            at_floor = f"{floor_wall / target:.2f}x the round's target"
        cpu_target = "" if round360 else " (target 2x)"
        return (f"  {against}; a game's floor {floor:.2f} ms (none {unisolated:.2f} + "
                f"processes and calls {floor - unisolated:.2f}), CPU per game "
                f"{per_game / floor:.1f}x it{cpu_target}\n  at its floor on {cores} cores, "
                f"fully busy, the run would take at least {floor_wall:.1f} s: {at_floor}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=None,
                        help="copies of the students (default 40; 360 with --round360)")
    parser.add_argument("--isolation", choices=["sandbox", "process", "none"], default=None,
                        help="default sandbox (process with --round360)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repo", type=Path, action="append",
                        help="a checkout whose harness to run (repeat to compare, interleaved)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter to run the monitor with")
    parser.add_argument("--runs", type=int, default=1, help="runs per checkout")
    parser.add_argument("--sample", type=float, default=0.5,
                        help="seconds between PSS samples")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="stop the tournament after this long and say how far it got")
    parser.add_argument("--round360", action="store_true",
                        help="one round of 360 agents, one-turn games (64,620 games)")
    parser.add_argument("--references", action="store_true",
                        help="Axelrod's Tournament and a game's floor, measured beside the runs")
    options = parser.parse_args()
    options.agents = options.agents or (360 if options.round360 else 40)
    options.isolation = options.isolation or ("process" if options.round360 else "sandbox")
    repos = [repo.resolve() for repo in (options.repo or [default_repo()])]
    order = [repo for k in range(options.runs)
             for repo in (repos if k % 2 == 0 else repos[::-1])]  # A B B A A B ...
    print(f"class.py: {options.agents} agents, --isolation {options.isolation} --jobs "
          f"{options.jobs} --seed {options.seed}"
          f"{', one round of one-turn games' if options.round360 else ''}; "
          f"{os.cpu_count()} cores ({idle_policy()}); load average {load()}", flush=True)
    results: dict[Path, list[dict]] = {repo: [] for repo in repos}
    references = References() if options.references else None
    with tempfile.TemporaryDirectory(prefix="pdbench-class-") as folder:
        write_copies(Path(folder), options.agents)
        if references is not None:
            for repo in repos:
                references.measure_unisolated(options, repo, options.python, Path(folder))
        for number, repo in enumerate(order, 1):
            figures = run_once(options, repo, options.python, Path(folder))
            results[repo].append(figures)
            report(f"run {number}/{len(order)} ({repo})", figures)
    if references is not None:
        references.finish()
        for repo, runs in results.items():
            for figures in runs:
                if line := references.beside(figures, repo, options.round360):
                    print(f"{repo}:" + line.removeprefix(" "))
    if len(order) > 1:
        print("medians:")
        for repo, runs in results.items():
            finished = [r for r in runs if not r["timed_out"]]
            if not finished:
                continue
            cpu = [(r["cgroup_cpu"] or (r["wait4_cpu"],))[0] for r in finished]
            wall = [r["wall"] for r in finished]
            print(f"  {repo}: wall {statistics.median(wall):.2f} s, CPU "
                  f"{statistics.median(cpu):.2f} s, CPU per game "
                  f"{statistics.median(c / r['games'] for c, r in zip(cpu, finished, strict=True)) * 1000:.2f}"
                  f" ms, PSS peak {statistics.median(r['pss_peak'] for r in finished):.0f} MiB "
                  f"({len(finished)} runs)")


if __name__ == "__main__":
    main()
