"""Where a tournament's CPU goes: the monitor, bubblewrap, the agents' zygotes and their game
processes, each split into user code and the kernel's work (fork, exit, page faults, pipes,
the file system, ...), from a `perf record` of the whole process tree.

    python benchmarks/cpu_split.py --agents 20                 # records, then reports
    python benchmarks/cpu_split.py --agents 20 --isolation process
    python benchmarks/cpu_split.py --agents 20 --keep run.perf  # keeps run.perf, run.json
    python benchmarks/cpu_split.py --report run.perf --result run.json   # report it again
    python benchmarks/cpu_split.py --agents 120 --isolation process --round360   # one-turn games

The tournament is class.py's (renamed copies of the bundled students, default rules, `--jobs
2`, `--seed 1`), run once to warm the caches (Hy's bytecode, SBCL's fasls), then once under
`perf record -a -F 999 -g`: the whole machine, because perf following the run's processes
alone (without -a) loses the samples of a process that is exiting, which is a game
process's last millisecond. Every sample of the run's process tree (`perf report
--tasks`; other processes are left out) is charged to a role:

- monitor: the `pdharness` process itself (all its threads);
- bwrap: bubblewrap's processes (the sandbox's set-up, and its PID 1 waiting);
- zygote: an agent's host (the process bubblewrap, or in `process` isolation the monitor,
  started), which forks a child per game;
- game: a child of a zygote, which plays one game and exits;

a zygote's samples before the first sample of any of its game children are its start
("zygote python start": interpreter, imports, loading the agent's code), shown apart
because they do not grow with the games;

and, by the kernel functions on its stack, to the first matching kind of work (see KINDS;
"user" is the program's own code: Python's interpreter, SBCL's compiled code). Samples
are 1/999 s of CPU each: the shares are statistical (the count is printed), and perf's own
overhead inflates the run by a few percent. Figures are per game (the total over the games
played) and, for zygotes and games, per agent-game of their host program (python: Python
and Hy agents; sbcl: Lisp). Python 3.11 gives perf no Python function names: for those,
py-spy (whose idle detection, though, counts the hosts' blocking reads as busy). Needs
`perf` (Debian: linux-perf) and the right to sample the whole machine (root, or
kernel.perf_event_paranoid <= 0).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FREQUENCY = 999

# (kind, kernel functions that mark it), first match wins, tried from the leaf frame up
KINDS = [
    ("fork", ("copy_process", "dup_mm", "dup_mmap", "copy_page_range", "kernel_clone")),
    ("exec", ("bprm_execve", "do_execveat_common", "load_elf_binary", "begin_new_exec")),
    ("exit", ("do_exit", "exit_mmap", "mmput", "do_group_exit", "release_task",
              "exit_files", "exit_mm")),
    ("namespaces+mounts", ("copy_namespaces", "create_new_namespaces", "ksys_unshare",
                           "do_mount", "path_mount", "__x64_sys_pivot_root", "umount",
                           "mnt_", "put_mnt_ns", "free_nsproxy", "cleanup_mnt")),
    ("page faults", ("asm_exc_page_fault",)),
    ("munmap/mmap", ("__vm_munmap", "do_mmap", "__x64_sys_munmap", "__x64_sys_mmap",
                     "__x64_sys_brk", "__x64_sys_mprotect")),
    ("pipes", ("pipe_read", "pipe_write", "anon_pipe_write", "__x64_sys_pipe2")),
    ("directory walk+unlink", ("iterate_dir", "__x64_sys_getdents64", "do_unlinkat",
                               "do_rmdir", "vfs_unlink", "vfs_rmdir")),
    ("stat+open+close", ("vfs_statx", "__x64_sys_newfstatat", "do_sys_openat2",
                         "__x64_sys_close", "__x64_sys_openat", "vfs_fstat",
                         "__x64_sys_newfstat", "__x64_sys_statx", "__x64_sys_readlink",
                         "filp_close", "__fput")),
    ("read/write (files)", ("vfs_read", "vfs_write", "ksys_read", "ksys_write")),
    ("poll/select/epoll", ("do_sys_poll", "do_select", "do_epoll_wait", "ep_poll",
                           "core_sys_select")),
    ("wait4/kill/signals", ("kernel_wait4", "do_wait", "__x64_sys_kill", "kill_pid_info",
                            "do_send_sig_info", "get_signal", "arch_do_signal_or_restart",
                            "__x64_sys_rt_sigprocmask", "__x64_sys_rt_sigaction")),
    ("cgroups+rlimits+prctl", ("cgroup_", "__x64_sys_prlimit64", "__x64_sys_prctl",
                               "__x64_sys_seccomp", "__x64_sys_setrlimit")),
    ("futex+sched", ("futex", "schedule", "__x64_sys_sched_yield", "nanosleep",
                     "finish_task_switch")),
]


def classify(stack: list[tuple[str, str]]) -> str:
    """The kind of one sample, from its frames (symbol, dso), leaf first."""
    if not stack or "kernel" not in stack[0][1]:
        return "user"
    for symbol, dso in stack:
        if "kernel" not in dso:
            break
        for kind, marks in KINDS:
            if any(symbol.startswith(mark) or symbol == mark for mark in marks):
                return kind
    syscall = any(symbol in ("do_syscall_64", "entry_SYSCALL_64_after_hwframe")
                  for symbol, _ in stack)
    return "kernel: other syscalls" if syscall else "kernel: interrupts, other"


def tasks(recording: Path) -> tuple[int, dict[int, int], dict[int, str]]:
    """(the monitor's pid, pid -> parent pid, pid -> last command name) from perf's tree."""
    text = subprocess.run(["perf", "report", "-i", str(recording), "--tasks", "--stdio"],
                          capture_output=True, text=True, check=True).stdout
    parent, names, owner = {}, {}, {}
    for line in text.splitlines():
        fields = line.split(None, 3)
        if len(fields) < 4 or not fields[0].isdigit():
            continue
        pid, tid, ppid = int(fields[0]), int(fields[1]), int(fields[2])
        owner[tid] = pid
        if pid != tid:
            continue
        parent[pid] = ppid
        names[pid] = fields[3].strip("| ").strip()
    # a parent is given as the thread that forked: its process is the parent
    parent = {pid: owner.get(ppid, ppid) for pid, ppid in parent.items()}
    # the workload is perf's child (with -a every process is in the tree: find it there)
    root = next((pid for pid, ppid in parent.items()
                 if names.get(ppid) == "perf" and names[pid] != "perf"), None)
    if root is None:
        root = next(pid for pid, ppid in parent.items() if ppid == -1 and pid != 0)
    return root, parent, names


def roles(root: int, parent: dict[int, int], names: dict[int, str]) -> dict[int, str]:
    """pid -> monitor, bwrap, zygote, game (the last two with the host's program: python
    for Python and Hy agents, sbcl for Lisp), or outside (not the run's: with -a perf
    samples the whole machine)."""
    role = {root: "monitor"}

    def of(pid: int) -> str:
        if pid in role:
            return role[pid]
        up = parent.get(pid)
        if up is None or up == -1:
            found = "outside"
        elif names.get(pid) == "bwrap":
            found = "bwrap" if of(up) != "outside" else "outside"
        else:
            above = of(up).split()[0]
            # a host is started by bwrap (sandbox) or by the monitor (process isolation)
            kind = {"bwrap": "zygote", "monitor": "zygote", "zygote": "game",
                    "game": "game"}.get(above, "outside")
            found = kind if kind == "outside" else f"{kind} {names.get(pid, '?')}"
        role[pid] = found
        return found

    for pid in parent:
        of(pid)
    return role


def samples(recording: Path):
    """(pid, time, stack) per sample, stack = [(symbol, dso), ...] leaf first."""
    process = subprocess.Popen(["perf", "script", "-i", str(recording),
                                "-F", "comm,pid,tid,time,ip,sym,dso"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               errors="replace")
    pid, when, stack = None, 0.0, []
    for line in process.stdout:
        if not line.strip():
            if pid is not None:
                yield pid, when, stack
            pid, stack = None, []
        elif not line[0].isspace():
            head = line.replace(":", " ").split()
            ids = [word for word in head if "/" in word and word.split("/")[0].isdigit()]
            pid = int(ids[-1].split("/")[0]) if ids else None
            when = float(next((word for word in reversed(head) if "." in word
                               and word.replace(".", "").isdigit()), 0.0))
            stack = []
        else:
            parts = line.strip().split(None, 1)
            rest = parts[1] if len(parts) > 1 else ""
            symbol, _, dso = rest.rpartition(" (")
            stack.append((symbol.split("+")[0], dso.rstrip(")")))
    if pid is not None:
        yield pid, when, stack
    process.wait()


def agent_games(result: dict) -> dict[str, int]:
    """Agent-games per host program: python (Python and Hy agents) and sbcl (Lisp)."""
    program = {a["name"]: "sbcl" if a["language"] == "lisp" else "python"
               for a in result["agents"]}
    counted: dict[str, int] = collections.Counter()
    for game in result["games"]:
        counted[program[game["a"]]] += 1
        counted[program[game["b"]]] += 1
    return counted


def report(recording: Path, games: int | None, per_program: dict | None = None) -> None:
    root, parent, names = tasks(recording)
    role = roles(root, parent, names)
    counts: dict[tuple[str, str], int] = collections.Counter()
    pids_seen: dict[str, set] = collections.defaultdict(set)
    outside = 0
    kept = []
    first_game: dict[int, float] = {}  # zygote pid -> when its first game child ran
    for pid, when, stack in samples(recording):
        if role.get(pid, "outside") == "outside":
            outside += 1
            continue
        kept.append((pid, when, classify(stack)))
        if role[pid].startswith("game"):
            zygote = parent[pid]
            first_game[zygote] = min(first_game.get(zygote, when), when)
    for pid, when, kind in kept:
        who = role[pid]
        if who.startswith("zygote") and when < first_game.get(pid, float("inf")):
            who += " start"  # the host's start: imports, loading the agent, before any game
        counts[who, kind] += 1
        pids_seen[who].add(pid)
    total = sum(counts.values())
    seconds = total / FREQUENCY
    per = f", {seconds / games * 1000:.2f} ms per game over {games} games" if games else ""
    print(f"{total} samples = {seconds:.2f} s of CPU{per} (and {outside} samples of "
          f"other processes and idle, left out)")
    by_role = collections.Counter()
    for (who, _kind), n in counts.items():
        by_role[who] += n
    for who, n in by_role.most_common():
        per_game = f"{n / FREQUENCY / games * 1000:6.2f} ms/game" if games else ""
        program = who.split()[1] if len(who.split()) > 1 else None
        if per_program and program in per_program and not who.endswith("start"):
            per_game += (f", {n / FREQUENCY / per_program[program] * 1000:.2f} ms per "
                         f"{program} agent-game")
        print(f"{who:13} {n / total:6.1%} {n / FREQUENCY:7.2f} s {per_game} "
              f"({len(pids_seen[who])} processes sampled)")
        for (who2, kind), m in sorted(counts.items(), key=lambda kv: -kv[1]):
            if who2 == who and m / total >= 0.002:
                per_game = f"{m / FREQUENCY / games * 1000:6.2f} ms/game" if games else ""
                print(f"    {kind:26} {m / total:6.1%} {m / FREQUENCY:7.2f} s {per_game}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--isolation", default="sandbox")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--report", type=Path, help="report an existing recording")
    parser.add_argument("--result", type=Path,
                        help="with --report: the run's --format json output (for the counts)")
    parser.add_argument("--keep", type=Path, help="keep the recording in this file")
    parser.add_argument("--round360", action="store_true",
                        help="class.py's --round360 rules: one round of one-turn games "
                             "(give --agents and --isolation process as well; past about "
                             "120 agents raise ulimit -n, as class.py does, or the round "
                             "is played in groups of agents)")
    options = parser.parse_args()
    if options.report:
        result = json.loads(options.result.read_text()) if options.result else None
        report(options.report, len(result["games"]) if result else None,
               agent_games(result) if result else None)
        return
    class_py = runpy.run_path(str(ROOT / "benchmarks" / "class.py"))
    write_copies, tournament_command = class_py["write_copies"], class_py["tournament_command"]
    with tempfile.TemporaryDirectory(prefix="pdbench-split-") as folder:
        write_copies(Path(folder), options.agents)
        command = tournament_command(options, sys.executable, Path(folder))
        environment = dict(os.environ, PYTHONPATH=str(options.repo.resolve()),
                           PDHARNESS_CACHE=class_py["readable_cache"]())   # as class.py's runs
        subprocess.run(command, cwd=options.repo, env=environment, check=True,
                       capture_output=True)  # warm-up: caches
        recording = options.keep or Path(folder) / "run.perf"
        print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        done = subprocess.run(["perf", "record", "-q", "-a", "-F", str(FREQUENCY), "-g", "-o",
                               str(recording), "--", *command], cwd=options.repo,
                              env=environment, capture_output=True, text=True, check=True)
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        result = json.loads(done.stdout)
        games = len(result["games"])
        faults = {kind: sum(s["faults"][kind] for s in result["standings"])
                  for kind in ("invalid", "exception", "timeout", "crash")}
        print(f"faults charged (a loaded machine makes honest agents time out, and a timed-"
              f"out host is replaced: a new zygote, its imports): {faults}")
        if options.keep:
            options.keep.with_suffix(".json").write_text(done.stdout)
        report(recording, games, agent_games(result))


if __name__ == "__main__":
    main()
