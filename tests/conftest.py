"""Shared test helpers.

Tests that need SBCL or bubblewrap skip on a laptop without them, but FAIL when CI=true:
CI installs both, so a skip there would hide a missing feature.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AGENTS = Path(__file__).resolve().parent / "agents"
IN_CI = os.environ.get("CI", "").lower() == "true"


def _need(tool: str, why: str):
    if shutil.which(tool):
        return
    message = f"{tool} is not installed ({why})"
    if IN_CI:
        pytest.fail(message + " - CI must install it", pytrace=False)
    pytest.skip(message)


@pytest.fixture
def libreoffice():
    """The spreadsheet itself, to prove a grades CSV runs no formula (CI installs it)."""
    _need("soffice", "apt-get install libreoffice-calc-nogui")
    return shutil.which("soffice")


@pytest.fixture
def sbcl():
    _need("sbcl", "apt-get install sbcl")


@pytest.fixture
def bwrap():
    _need("bwrap", "apt-get install bubblewrap")


@pytest.fixture
def sandboxed(bwrap):
    """bubblewrap must not only be installed but work here (in CI it must)."""
    from harness.isolation import sandbox

    found = sandbox.support()
    if found.flavor is None:
        if IN_CI:
            pytest.fail(f"the sandbox does not run in CI: {found.reason}", pytrace=False)
        pytest.skip(found.reason)
    return found


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """One harness cache for the whole session, never the user's own."""
    monkeypatch.setenv("PDHARNESS_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def shared_folder():
    """A folder a test and an agent under `process` isolation both see: not under /tmp,
    which is each game's own (harness/isolation/world.py), but under /var/tmp, which is not."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="pdharness-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def console_script() -> str:
    """The installed `pdharness`: the one beside this Python (a venv's, not necessarily on
    PATH), else PATH's. Missing: a failure in CI, which installs the package, else a skip."""
    beside = Path(sys.executable).parent / "pdharness"
    script = str(beside) if beside.exists() else shutil.which("pdharness")
    if script is None:
        if IN_CI:
            pytest.fail("pdharness is not installed: CI installs the package", pytrace=False)
        pytest.skip("pdharness not installed (pip install .)")
    return script


def pdharness(*args, cwd=None, status=0, timeout=600) -> subprocess.CompletedProcess:
    """The installed console script run with ARGS (paths and numbers as text), its exit
    status checked against `status` (one, or a tuple of those allowed)."""
    done = subprocess.run([console_script(), *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)
    allowed = status if isinstance(status, tuple) else (status,)
    assert done.returncode in allowed, done.stderr
    return done


def stop_after_round(monkeypatch, number: int) -> None:
    """Recorded runs are interrupted, as Ctrl-C does, once round `number` is written (until
    the monkeypatch is undone): what a resume then finishes."""
    from harness.store.recorder import Recorder

    finish_round = Recorder.round_finished

    def round_finished(self, state, round_result, games):
        finish_round(self, state, round_result, games)
        if round_result.number == number:
            raise KeyboardInterrupt

    monkeypatch.setattr(Recorder, "round_finished", round_finished)


def children(pid: int) -> dict[int, str]:
    """The living children of process `pid`: {pid: its start time}, which tells a process
    from a later one given the same number."""
    from glob import glob

    found = {}
    for listing in glob(f"/proc/{pid}/task/*/children"):
        try:
            with open(listing) as numbers:
                for child in numbers.read().split():
                    found[int(child)] = started(int(child))
        except FileNotFoundError:
            pass
    return {child: start for child, start in found.items() if start}


def started(pid: int) -> str:
    """The start time of process `pid` ("" once it is gone or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return ""
    return "" if fields[0] in ("Z", "X") else fields[19]


def all_gone(processes: dict[int, str], give_up: float = 60) -> list[int]:
    """Wait until none of `processes` ({pid: start time}, as `children` gives) lives; the
    ones still living after `give_up` seconds (a guard against hanging, not a measure)."""
    import time

    deadline = time.monotonic() + give_up
    while True:
        living = [pid for pid, start in processes.items() if started(pid) == start]
        if not living or time.monotonic() > deadline:
            return living
        time.sleep(0.05)


def run_cli(*args, input=None, cwd=None, timeout=300):
    """The real console entry point in a subprocess: (exit status, stdout, stderr)."""
    command = [sys.executable, "-m", "harness", *map(str, args)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(command, capture_output=True, text=True, input=input, cwd=cwd,
                          timeout=timeout, env=env)
    return done.returncode, done.stdout, done.stderr


def play_one(spec, opponent="titfortat", turns=6, params=None, mode="process", seed=1,
             timeout=1.0):
    """One real game of an agent against a built-in, through the real handles, each call
    allowed `timeout` seconds: (the game record, the agent's side "a" or "b", the agent's
    handle, closed)."""
    from harness.agents.specs import builtin_spec
    from harness.core.rules import GameParams
    from harness.isolation.handles.opening import Isolation, open_handle

    params = params or GameParams()
    isolation = Isolation(mode, timeout)
    agent = open_handle(spec, isolation)
    other = open_handle(builtin_spec(opponent), isolation)
    [(record, side)] = play_games(agent, other, [(turns, seed)], params)
    return record, side, agent


def intended_moves(record, side):
    return [t.intended_a if side == "a" else t.intended_b for t in record.turns]


def default_stop_signals() -> None:
    """A Popen preexec_fn for a test that stops the command it starts with SIGINT or
    SIGTERM: the child gets their default disposition, whatever this test process
    inherited. A shell starts a background job (`cmd &` in a script, `nohup`) with SIGINT
    ignored, and a run rightly keeps an ignored SIGINT (harness/core/interrupts.py), so
    without this the test would time how long a Ctrl-C takes to do nothing."""
    import signal

    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.SIG_DFL)


def stop_when(args, ready, stop):
    """Run the real command line with ARGS in its own process and send it the signal STOP
    as soon as ready() holds (e.g. its record holds a finished part); its exit status."""
    import time

    process = subprocess.Popen([sys.executable, "-m", "harness", *map(str, args)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)),
                               preexec_fn=default_stop_signals)
    try:
        give_up = time.monotonic() + 300   # a guard against hanging, not a measurement
        while not ready():
            assert process.poll() is None, "the command ended before it could be stopped"
            assert time.monotonic() < give_up, "it never got ready to be stopped"
            time.sleep(0.02)
        process.send_signal(stop)
        return process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def play_games(agent, other, games, params):
    """Games of two open handles, given as (length, seed), each with side "a" to the name
    that sorts first, as a round robin does; both handles closed after:
    [(the game record, the agent's side "a" or "b")]."""
    from harness.engine.game import play_game

    played = []
    try:
        for length, seed in games:
            first, second = sorted([agent, other], key=lambda handle: handle.name)
            played.append((play_game(first, second, length, seed, params),
                           "a" if first is agent else "b"))
    finally:
        agent.close()
        other.close()
    return played


def pytest_collection_modifyitems(items):
    """Markers from the fixtures a test uses (directly or through another fixture): `sbcl`
    and `sandbox` for what it needs, and `slow` for both, since every SBCL image or
    bubblewrap sandbox started costs the better part of a second. `pytest -m "not slow"` is
    the quick loop (CONTRIBUTING.md)."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "sbcl" in used:
            item.add_marker(pytest.mark.sbcl)
        if "bwrap" in used:
            item.add_marker(pytest.mark.sandbox)
        if used & {"sbcl", "bwrap"}:
            item.add_marker(pytest.mark.slow)
