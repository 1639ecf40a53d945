"""A game is a fresh agent, by construction (issue 11, section 2).

Hostile agents (tests/agents/hostile/) keep state from game to game in every carrier we
know: Python's `builtins` and `sys.modules`, the environment, threads, a grandchild that
left its session, files in /tmp (the game length, secret by the rules), and in Lisp symbols
of packages the file did not make. Each plays one way in its first game and another in
later ones. Every host forks each game's agent fresh from a zygote that never ran agent
code, and kills all of a game's processes at its end, so:
- the same game, played again on the same handle, is the same game;
- a tournament's JSON is the same with one job or two, after kill -9 and resume, and under
  `process` and `sandbox` isolation (files in /tmp carry over only outside the sandbox,
  where /tmp is the machine's: those agents play under the sandbox only).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import ROOT, run_cli
from test_hostile import HOSTILE

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

IN_MEMORY = ["GameCounter.py", "ModuleStasher.py", "EnvCounter.py", "ThreadCounter.py",
             "GrandchildCounter.py", "HyGameCounter.hy", "LispGameCounter.lisp",
             "LispUserCounter.lisp"]
IN_FILES = ["LengthSpy.py", "HyLengthSpy.hy", "LispLengthSpy.lisp"]  # /tmp: the sandbox's only
BUILTINS = ["titfortat", "grudger", "random", "defect"]
GAME = ("--seed", "5", "--length", "6", "9", "--format", "json", "--timeout", "5")


def intended(handle, opponent, games=3, turns=5):
    """The moves the agent meant, in each of `games` plays of one game (same seed)."""
    from harness.game import play_game
    from harness.rules import GameParams

    seen = []
    for _ in range(games):
        record = play_game(handle, opponent, turns, 9, GameParams())
        seen.append([turn.intended_a for turn in record.turns])
    return seen


def cases():
    for name in IN_MEMORY:
        yield name, "process"
        yield name, "sandbox"
    for name in IN_FILES:
        yield name, "sandbox"


@pytest.mark.parametrize("name,mode", list(cases()))
def test_the_same_game_played_again_is_the_same_game(name, mode, bwrap, sbcl):
    from harness.agents import builtin_spec, file_spec
    from harness.handles.opening import Isolation, open_handle

    isolation = Isolation(mode, 5.0)
    handle = open_handle(file_spec(HOSTILE / name), isolation)
    opponent = open_handle(builtin_spec("titfortat"), isolation)
    try:
        seen = intended(handle, opponent)
    finally:
        handle.close()
        opponent.close()
    assert seen[0] == ["CCC"] * 5, handle.captured_output()  # what it plays in a first game
    assert seen[1:] == seen[:1] * 2


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
    agents = field(tmp_path, IN_MEMORY + IN_FILES)
    one = tournament(agents, "--isolation", "sandbox", "--jobs", "1")
    assert tournament(agents, "--isolation", "sandbox", "--jobs", "2") == one
    assert killed_and_resumed(tmp_path, agents, "--isolation", "sandbox", "--jobs", "2") == one
    assert all(agent["status"] == "ok" for agent in one["agents"])


def test_process_and_sandbox_isolation_agree(tmp_path, bwrap, sbcl):
    agents = field(tmp_path, IN_MEMORY)
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


def test_hy_agents_that_require_the_prelude_all_load_on_a_cold_cache(tmp_path, monkeypatch):
    """Hy agents loaded on parallel threads while Hy itself was first imported once lost
    their `#'` reader macro ("reader macro '#'' is not defined")."""
    monkeypatch.setenv("PDHARNESS_CACHE", str(tmp_path / "cold-cache"))
    agents = copies(tmp_path, ROOT / "student_agents" / "KimLopez.hy", 6)
    status, out, err = run_cli("tournament", agents, "--isolation", "none", "--seed", "1",
                               "--max-rounds", "1", "--format", "json")
    assert status == 0, err
    assert [a["status"] for a in json.loads(out)["agents"]] == ["ok"] * 6, out
