"""A game is a fresh agent in a fresh world, by construction.

Hostile agents (tests/agents/hostile/) keep state from game to game in every carrier we
know: Python's `builtins` and `sys.modules`, the environment, threads, a grandchild that
left its session, files in /tmp (the game length, secret by the rules), a tree under /tmp
deeper than PATH_MAX, and in Lisp symbols of packages the file did not make. Each plays
one way in its first game and another in later ones. Others (the world's spies) play the
bits of what they see of the world around the game: process IDs (their own, a new
thread's, the kernel's last), /tmp's metadata (a new file's inode number, /tmp's mode,
links and extended attributes). Every host forks each game's agent fresh from a zygote
that never ran agent code, in namespaces of its own (harness/isolation/world.py), under `process`
as under `sandbox`, so:
- the same game, played again on the same handle, is the same game;
- a tournament's JSON is the same with one job or two, after kill -9 and resume, and under
  `process` and `sandbox` isolation.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from test_hostile import HOSTILE

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

IN_MEMORY = ["GameCounter.py", "ModuleStasher.py", "EnvCounter.py", "ThreadCounter.py",
             "GrandchildCounter.py", "HyGameCounter.hy", "LispGameCounter.lisp",
             "LispUserCounter.lisp"]
IN_FILES = ["LengthSpy.py", "HyLengthSpy.hy", "LispLengthSpy.lisp", "DeepTree.py"]
WORLD_SPIES = ["PidSpy.py", "TmpSpy.py", "HyPidSpy.hy", "HyTmpSpy.hy", "LispPidSpy.lisp",
               "LispTmpSpy.lisp", "PtySpy.py"]
# what a game shares with the next whatever its world: the descriptors it inherits from its
# host (their flags, O_ASYNC's owner and signal, a pipe's size), the machine's count of
# processes (a pidfd's inode number) and its page cache (read with RWF_NOWAIT): the game's
# filter denies changing or reading them
KERNEL_SPIES = ["FdFlagger.py", "HyFdFlagger.hy", "LispFdFlagger.lisp", "PidfsSpy.py",
                "CacheCourier.py"]
BUILTINS = ["titfortat", "grudger", "random", "defect"]
GAME = ("--seed", "5", "--length", "6", "9", "--format", "json", "--timeout", "5")


def intended(handle, opponent, games=3, turns=5):
    """The moves the agent meant, in each of `games` plays of one game (same seed)."""
    from harness.core.rules import GameParams
    from harness.engine.game import play_game

    seen = []
    for _ in range(games):
        record = play_game(handle, opponent, turns, 9, GameParams())
        seen.append([turn.intended_a for turn in record.turns])
    return seen


def cases(names, process=True):
    return [(name, mode) for name in names
            for mode in (("process", "sandbox") if process else ("sandbox",))]


# Under a root monitor (CI's) `process` games are plain forks (harness/isolation/world.py, OFF): their
# world is checked under a monitor that is not root (the last test of this file)
WORLD_UNDER_PROCESS = os.geteuid() != 0


def played_three_times(name, mode):
    from harness.agents.specs import builtin_spec, file_spec
    from harness.isolation.handles.opening import Isolation, open_handle

    isolation = Isolation(mode, 5.0)
    handle = open_handle(file_spec(HOSTILE / name), isolation)
    opponent = open_handle(builtin_spec("titfortat"), isolation)
    try:
        return intended(handle, opponent), handle.captured_output()
    finally:
        handle.close()
        opponent.close()


@pytest.mark.parametrize("name,mode", cases(IN_MEMORY) + cases(IN_FILES, WORLD_UNDER_PROCESS))
def test_the_same_game_played_again_is_the_same_game(name, mode, bwrap, sbcl):
    seen, output = played_three_times(name, mode)
    assert seen[0] == ["CCC"] * 5, output  # what it plays in a first game
    assert seen[1:] == seen[:1] * 2


@pytest.mark.parametrize("name,mode",
                         cases(WORLD_SPIES, WORLD_UNDER_PROCESS) + cases(KERNEL_SPIES))
def test_what_a_game_sees_of_its_world_is_the_same_in_every_game(name, mode, bwrap, sbcl):
    seen, output = played_three_times(name, mode)
    assert seen[1:] == seen[:1] * 2, output


def field(tmp_path, names):
    folder = tmp_path / "agents"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(HOSTILE / name, folder)
    return [str(folder), *BUILTINS]


def tournament(agents, *options):
    status, out, err = run_cli("tournament", *agents, *GAME, *options)
    assert status == 0, err
    return json.loads(out)


def rounds_in(path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT count(*) FROM round").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # not there yet, or its schema is being written


def killed_and_resumed(tmp_path, agents, *options):
    """The JSON of a run killed with SIGKILL once its first round is recorded, resumed."""
    path = tmp_path / "run.sqlite"
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "tournament", *agents, *GAME, *options,
         "--db", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        give_up = time.monotonic() + 300   # a guard against hanging, not a measurement
        while process.poll() is None and rounds_in(path) < 1 and time.monotonic() < give_up:
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    # how agents are confined is never read from the record: given again, as recorded
    status, out, err = run_cli("resume", path, "--format", "json", "--timeout", "5",
                               *options[:2])
    assert status == 0, err
    return json.loads(out)


def test_one_job_two_jobs_and_a_resumed_run_agree_in_the_sandbox(tmp_path, bwrap, sbcl):
    agents = field(tmp_path, IN_MEMORY + IN_FILES + WORLD_SPIES)
    one = tournament(agents, "--isolation", "sandbox", "--jobs", "1")
    assert tournament(agents, "--isolation", "sandbox", "--jobs", "2") == one
    assert killed_and_resumed(tmp_path, agents, "--isolation", "sandbox", "--jobs", "2") == one
    assert all(agent["status"] == "ok" for agent in one["agents"])


def test_process_and_sandbox_isolation_agree(tmp_path, bwrap, sbcl):
    agents = field(tmp_path, IN_MEMORY + (IN_FILES + WORLD_SPIES if WORLD_UNDER_PROCESS else []))
    sandboxed = tournament(agents, "--isolation", "sandbox", "--jobs", "2")
    in_processes = tournament(agents, "--isolation", "process", "--jobs", "2")
    assert sandboxed["params"].pop("isolation") == "sandbox"
    assert in_processes["params"].pop("isolation") == "process"
    assert in_processes == sandboxed


# -- the trusted `none` mode: same seed, same result, whatever the threads and workers --------
def copies(tmp_path, source, count):
    folder = tmp_path / source.stem
    folder.mkdir()
    text = source.read_text()
    for k in range(1, count + 1):
        (folder / f"{source.stem}{k}{source.suffix}").write_text(
            text.replace(source.stem, f"{source.stem}{k}"))
    return str(folder)


def test_lisp_agents_in_none_mode_play_the_same_with_one_job_or_two(tmp_path, sbcl):
    """Forked workers once shared the parent's pipes to the SBCL hosts: spurious faults and
    a different result on every run."""
    agents = [copies(tmp_path, ROOT / "student_agents" / "FischerGupta.lisp", 4),
              "titfortat", "grudger", "pavlov", "random", "defect", "cooperate"]
    # a generous call limit: on a busy machine a slow turn must not pass for the bug
    options = ("--isolation", "none", "--seed", "7", "--format", "json", "--timeout", "20")
    status, one, err = run_cli("tournament", *agents, *options, "--jobs", "1")
    assert status == 0, err
    status, two, err = run_cli("tournament", *agents, *options, "--jobs", "2")
    assert status == 0, err
    assert json.loads(two) == json.loads(one)
    assert not any(sum(s["faults"].values()) for s in json.loads(one)["standings"])


PRINTER = """import random
print("loading Printer{k}")


def Printer{k}(hist, score):
    print("Printer{k} turn", len(hist), "x" * random.randrange(3000))
    return ["C", "D", "C"]
"""


def test_what_agents_in_the_monitor_print_is_recorded_alike_with_one_job_or_two(tmp_path):
    """Under `none`, with --jobs above 1, games run in forked workers: what an agent prints
    there is sent back, so the record keeps what one process playing every game would,
    to the same cap (about 20 games of up to 100 turns' lines: past 64 KiB)."""
    folder = tmp_path / "printers"
    folder.mkdir()
    for k in range(1, 4):
        (folder / f"Printer{k}.py").write_text(PRINTER.format(k=k))
    outputs = []
    for jobs in ("1", "2"):
        db = tmp_path / f"jobs{jobs}.db"
        status, out, err = run_cli("tournament", str(folder), "titfortat", "--isolation", "none",
                                   "--seed", "5", "--format", "json", "--jobs", jobs,
                                   "--db", str(db))
        assert status == 0, err
        json.loads(out)   # nothing an agent printed is in the result
        with sqlite3.connect(db) as connection:
            outputs.append(dict(connection.execute(
                "SELECT name, output FROM agent WHERE name LIKE 'Printer%'")))
    assert outputs[1] == outputs[0]
    assert len(outputs[0]) == 3
    assert all(text.startswith(f"loading {name}\n") and f"{name} turn 9 " in text
               and text.endswith("more characters not kept]") for name, text in outputs[0].items())


def test_hy_agents_that_require_the_prelude_all_load_on_a_cold_cache(tmp_path, monkeypatch):
    """Hy agents loaded on parallel threads while Hy itself was first imported once lost
    their `#'` reader macro ("reader macro '#'' is not defined")."""
    monkeypatch.setenv("PDHARNESS_CACHE", str(tmp_path / "cold-cache"))
    agents = copies(tmp_path, ROOT / "student_agents" / "KimLopez.hy", 6)
    status, out, err = run_cli("tournament", agents, "--isolation", "none", "--seed", "1",
                               "--max-rounds", "1", "--format", "json")
    assert status == 0, err
    assert [a["status"] for a in json.loads(out)["agents"]] == ["ok"] * 6, out


# -- the agent's own file: read once for the run ---------------------------------------------
REWRITTEN = {
    "py": ('def Rewritten(hist, score):\n'
           '    if len(hist) == 6:\n'
           '        import os\n'
           '        os._exit(3)\n'
           '    return ["{move}"] * 3\n'),
    "lisp": ('(defun Rewritten (hist score)\n'
             '  (declare (ignore score))\n'
             '  (when (= (length hist) 6) (sb-ext:exit :code 3 :abort t))\n'
             "  '({move} {move} {move}))\n"),
}


@pytest.mark.parametrize("suffix", ["py", "lisp"])
@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_a_replaced_host_plays_the_file_the_run_started_with(tmp_path, mode, suffix, bwrap,
                                                             sbcl):
    """An agent that makes its own process die (on its third turn, every game) gets a new
    one for its next game: that one loads the bytes the run read, not the file edited since,
    and the record's SHA-256 is of those bytes."""
    import hashlib

    from harness.agents.specs import builtin_spec, file_spec
    from harness.isolation.handles.opening import Isolation, open_handle

    path = tmp_path / f"Rewritten.{suffix}"
    path.write_text(REWRITTEN[suffix].format(move="C"))
    first = hashlib.sha256(path.read_bytes()).hexdigest()
    spec = file_spec(path)
    isolation = Isolation(mode, 5.0)
    handle = open_handle(spec, isolation)
    opponent = open_handle(builtin_spec("titfortat"), isolation)
    try:
        before = intended(handle, opponent, games=1)
        path.write_text(REWRITTEN[suffix].format(move="D"))
        after = intended(handle, opponent, games=2)
    finally:
        handle.close()
        opponent.close()
    assert before == after[:1] == after[1:], handle.captured_output()
    assert before[0][:2] == ["CCC"] * 2
    assert spec.sha256() == first


def test_a_checkout_under_tmp_changes_nothing(tmp_path, bwrap, sbcl):
    """Each game covers /tmp with its own: the harness and the agents, when they live under
    /tmp (a scratch clone), are still there for it, as every folder the host needs is
    (a venv's the same way: harness/isolation/world.py, KEEP)."""
    checkout = tmp_path / "checkout"
    for part in ("harness", "lisp_bridge", "student_agents"):
        shutil.copytree(ROOT / part, checkout / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    agents = ["AdamsBrown.py", "KimLopez.hy", "BrownChen.lisp"]
    options = ("titfortat", "--seed", "3", "--length", "4", "6", "--format", "json",
               "--timeout", "5", "--max-rounds", "2")

    def played(python, root, mode):
        done = subprocess.run(
            [str(python), "-m", "harness", "tournament",
             *[str(root / "student_agents" / name) for name in agents], *options,
             "--isolation", mode], capture_output=True, text=True, timeout=600, cwd=root,
            env=dict(os.environ, PYTHONPATH=str(root)))
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        for agent in result["agents"]:
            assert agent["status"] == "ok", agent
            agent.pop("source")
        return result

    for mode in ("sandbox", "process"):
        assert played(sys.executable, checkout, mode) == played(sys.executable, ROOT, mode)


NOT_ROOT = 65534   # nobody: a monitor that is not root (a student's laptop, a shared server)
RUN_AS_ANYONE = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from harness.agents.specs import builtin_spec, file_spec
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle
    from harness.core.rules import GameParams

    seen = {}
    for name in sys.argv[3:]:
        isolation = Isolation(sys.argv[2], 5.0)
        handle = open_handle(file_spec(Path(sys.argv[1]) / name), isolation)
        opponent = open_handle(builtin_spec("titfortat"), isolation)
        seen[name] = [[turn.intended_a for turn in play_game(handle, opponent, 4, 9,
                                                             GameParams()).turns]
                      for _ in range(3)]
        handle.close()
        opponent.close()
    print(json.dumps(seen))
""")


def installed_for_anyone(root: Path, names, folders=()) -> None:
    """Into `root`: a copy of the harness, the hostile agents `names`, RUN_AS_ANYONE as run.py
    and empty `folders`, all owned by NOT_ROOT, and readable by any user."""
    os.chmod(root, 0o755)
    for part in ("harness", "lisp_bridge"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in names:
        shutil.copy(HOSTILE / name, root)
    (root / "run.py").write_text(RUN_AS_ANYONE)
    for folder in folders:
        (root / folder).mkdir()
    for path in root.rglob("*"):
        path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))
        os.chown(path, NOT_ROOT, NOT_ROOT)


@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_under_a_monitor_that_is_not_root_every_game_sees_the_same_world(mode, bwrap, sbcl):
    """As an ordinary user the agent owns its /tmp (it may change its mode), the pipes it
    inherits and whatever that user owns (the harness, here: it owns its install, as an
    instructor owns a clone): each game's /tmp is new all the same, its process IDs too, and
    no inode it owns can be marked. Run as `nobody`, with Debian's python3 (which `nobody`
    can read) and a copy of the harness `nobody` owns."""
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root (to become nobody) and Debian's /usr/bin/python3")
    import tempfile

    names = ["PidSpy.py", "TmpSpy.py", "DeepTree.py", "LispPidSpy.lisp", "LispTmpSpy.lisp",
             "InodeMarker.py", "CacheMapper.py", "LispInodeMarker.lisp"]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        installed_for_anyone(root, names, ["home"])
        home = root / "home"
        done = subprocess.run(
            ["setpriv", "--reuid", str(NOT_ROOT), "--regid", str(NOT_ROOT), "--clear-groups",
             "/usr/bin/python3", str(root / "run.py"), str(root), mode, *names],
            capture_output=True, text=True, timeout=600, cwd=root,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                 "XDG_CACHE_HOME": str(home / "cache")})
    assert done.returncode == 0, done.stderr[-2000:]
    for name, games in json.loads(done.stdout).items():
        assert games[1:] == games[:1] * 2, name
        if name == "DeepTree.py":
            assert games[0] == ["CCC"] * 4


def test_under_a_root_monitor_with_a_readable_install_process_games_see_the_same_world(sbcl):
    """`process` isolation as root, installed where any user may read it: each game gets a
    world of its own (docs/security.md, "root, readable"), /sys and /dev/pts covered too: the agent's
    cgroup, which lives across its games, shows no counter (its memory peak), the machine's
    terminals no time. Run with Debian's python3 and a copy of the harness and a cache that
    any user can read."""
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root and Debian's /usr/bin/python3")
    import tempfile

    names = ["CgroupSpy.py", "PtySpy.py", "PidSpy.py", "TmpSpy.py", "FdFlagger.py",
             "LispPidSpy.lisp", "LispFdFlagger.lisp"]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        installed_for_anyone(root, names, ["cache"])
        done = subprocess.run(
            ["/usr/bin/python3", str(root / "run.py"), str(root), "process", *names],
            capture_output=True, text=True, timeout=600, cwd=root,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
                 "PDHARNESS_CACHE": str(root / "cache")})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "CAP_DAC_READ_SEARCH" not in done.stderr   # the games had worlds of their own
    for name, games in json.loads(done.stdout).items():
        assert games[1:] == games[:1] * 2, name
        if name in ("CgroupSpy.py", "PtySpy.py"):
            assert games[0] == ["CCC"] * 4   # no cgroup, no terminal to be seen
