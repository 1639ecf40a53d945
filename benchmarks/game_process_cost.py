"""Where a game's process spends its CPU: each phase of its life, and its page faults.

    python benchmarks/game_process_cost.py [--games N] [--turns T] [AGENT_FILE ...]

A game's process (harness/isolation/host.py) is forked from its agent's zygote, builds its
world (harness/isolation/world.py: PID and mount namespaces, a new /tmp and /dev/shm),
installs the game's seccomp filter, runs the agent's module anew, plays, and exits. For
each agent this starts a process exactly as the monitor starts a host (`python -S`, the
same bootstrap, `-m`: harness/agents/lang/python_process.py), which imports and prepares
what a host does (`host.Agent`, the world, the filter) and then, for N games of 30 turns,
forks a game's process the host's way (`Zygote._fork`), runs the host's own steps in it
one by one, and plays the game with the host's own `Zygote._play`, its requests written
into the game channel before the fork (no monitor, no wake-ups: the process alone).
`--turns T` plays T turns a game instead (a long game shows a call's steady cost).
Per game it prints:

- CPU time and minor page faults of each phase, read inside the game's process: from the
  fork to its first line of code, the at-fork steps (`die_with_zygote`, closing the
  control channel), the world built, the seccomp filter, the runtime made and the module
  run anew, the 30 calls (requests read and split, played turns recorded, the agent called,
  replies written);
- its whole CPU and faults (getrusage of reaped children: fork's and exit's kernel work
  included; "exit" is the whole less the phases), and the zygote's own CPU per game (its
  side of fork and reaping);
- the zygote's image before its first fork: resident and anonymous memory (every game's
  fork copies its page tables and exit tears them down) and its modules.

Minor faults are nearly all copy-on-write copies of the zygote's pages (Python writes the
reference count of every object it uses). Needs user namespaces (as the sandbox does).
Default agents: the bundled Python and Hy students. CPU time, not wall time, is measured:
a shared machine distorts it least; the load (`uptime`) is printed beside it.
"""
from __future__ import annotations

# The zygote's side runs as `-m game_process_cost --zygote ...` in a host-like process:
# it imports nothing here a host does not, but for `resource` (a small C module)
import os
import sys

TURNS = 30
PHASES = ("fork", "at-fork", "world", "filter", "runtime+module", "calls")


def main() -> None:
    import argparse
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root))
    from harness.agents.lang.python_process import host_environment, python_module_command
    from harness.isolation import seccomp

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--turns", type=int, default=TURNS)
    parser.add_argument("agents", nargs="*", type=Path,
                        default=[root / "student_agents" / "KhosmoodLevinson.py",
                                 root / "student_agents" / "GarciaHoffman.hy"])
    options = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{options.games} games of {options.turns} turns each", flush=True)
    for path in options.agents:
        path = path.resolve()
        from harness.agents.lang import BY_SUFFIX

        language = BY_SUFFIX[path.suffix]
        if language.name == "hy":   # as Hy.host_command: the library cache filled first
            from harness.agents.lang.hy_loading import warm_library_cache

            warm_library_cache()
        env = host_environment("bench")
        env[seccomp.GAME_FILTER] = seccomp.program().hex()
        env["PYTHONPATH"] = str(Path(__file__).resolve().parent)   # this module, for -m
        argv = python_module_command("game_process_cost", "--zygote", language.name,
                                     str(path), path.stem, str(options.games),
                                     str(options.turns), site=False)
        subprocess.run(argv, env=env, check=True, cwd="/")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


def zygote(kind: str, source: str, name: str, games: int, turns: int) -> None:
    """In a process started as a host is: prepare as a host does, then play GAMES games."""
    import resource

    from harness.isolation import host, process_tree, world as worlds

    host._site_folders()
    if kind != "builtin":
        from harness.agents.agent_files import take_given_source

        take_given_source(source)
    agent = host.Agent(kind, source, name)
    control = os.pipe()
    world = worlds.enter(keep_open=control)
    if world is None:
        sys.exit("no user namespace here: a game's world cannot be built")
    process_tree.become_zygote()
    zygote = host.Zygote(agent, control[0], control[1], "bench", world, os.pipe())
    zygote.compiled = zygote.prepare()   # in a throwaway child, as a host does
    if zygote.compiled is None:
        sys.exit(f"{source} does not load")
    image = _image()

    def usage(who=resource.RUSAGE_SELF):
        used = resource.getrusage(who)
        return used.ru_utime + used.ru_stime, used.ru_minflt

    requests = [f"GAME {n + 1} {n} 3 5 3 1 0\nTURN\n" + "TURN CCD DCC\n" * (turns - 1)
                for n in range(games)]
    phases, wholes = [], []
    own_before = usage()[0]
    for game in range(games):
        zygote.serial = game + 1
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        mark_read, mark_write = os.pipe()
        os.write(request_write, requests[game].encode())
        os.close(request_write)
        zygote.game_requests, zygote.game_replies = request_read, reply_write
        children_before = usage(resource.RUSAGE_CHILDREN)
        pid = zygote._fork()
        if pid == 0:
            _game(zygote, world, usage, mark_write)
        for fd in (request_read, reply_write, mark_write):
            os.close(fd)
        replies = _read_all(reply_read)
        marks = eval(_read_all(mark_read))   # our own child's repr of floats and ints
        world.end()
        children_after = usage(resource.RUSAGE_CHILDREN)
        if replies.count(b"\n") != turns or b"MOVES" not in replies:
            sys.exit(f"the game's process did not answer every turn: {replies[:200]!r}")
        phases.append([(b[0] - a[0], b[1] - a[1]) for a, b in zip(
            [(0.0, 0), *marks[:-1]], marks, strict=True)])
        wholes.append((children_after[0] - children_before[0],
                       children_after[1] - children_before[1]))
    own = (usage()[0] - own_before) / games
    cpu, faults = (sum(whole[i] for whole in wholes) / games for i in (0, 1))
    means = [[sum(game[p][i] for game in phases) / games for i in (0, 1)]
             for p in range(len(PHASES))]
    split = ", ".join(f"{phase} {ms * 1000:.2f} ms/{flt:.0f}"
                      for phase, (ms, flt) in zip(PHASES, means, strict=True))
    split = split.replace("calls ", f"{turns} calls ")
    exit_cpu = cpu - sum(ms for ms, _ in means)
    exit_faults = faults - sum(flt for _, flt in means)
    print(f"{os.path.basename(source)}: zygote {image}\n"
          f"  a game's process {cpu * 1000:.2f} ms CPU, {faults:.0f} minor faults; "
          f"the zygote {own * 1000:.2f} ms a game\n"
          f"  phases (CPU/faults): {split}, exit and the rest "
          f"{exit_cpu * 1000:.2f} ms/{exit_faults:.0f}", flush=True)


def _game(zygote, world, usage, mark_write) -> None:
    """In a game's process: the steps of Zygote._in_child, each marked, then the game."""
    from harness.isolation import process_tree

    marks = [usage()]
    if zygote.world is None:   # as Zygote._in_child: in a world the kernel does it
        process_tree.die_with_zygote()
    os.close(zygote.requests)
    os.close(zygote.replies)
    marks.append(usage())
    world.build()
    marks.append(usage())
    if zygote.filter is not None:
        zygote.filter()
    marks.append(usage())
    agent = zygote.agent
    make_runtime = agent.runtime

    def runtime(compiled):
        made = make_runtime(compiled)
        start_game = made.start_game

        def started(*arguments):
            start_game(*arguments)
            marks.append(usage())
        made.start_game = started
        return made

    agent.runtime = runtime
    zygote._play(zygote.serial)
    marks.append(usage())
    os.write(mark_write, repr(marks).encode())
    os._exit(0)


def _image() -> str:
    status = {}
    with open("/proc/self/status") as lines:
        for line in lines:
            key, _, value = line.partition(":")
            status[key] = value.split()[0] if value.split() else ""
    return (f"RSS {int(status['VmRSS']) / 1024:.1f} MB (anonymous "
            f"{int(status['RssAnon']) / 1024:.1f}), {len(sys.modules)} modules")


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        kind, source, name, games, turns = sys.argv[2:7]
        zygote(kind, source, name, int(games), int(turns))
    else:
        main()
