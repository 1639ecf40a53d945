"""Agents that buy more than their time limit's worth of CPU in a call by making their own
work look like other programs' load (harness/isolation/own_time.py).

Each time thief in tests/agents/hostile/ pins itself and helpers of its own (threads,
children, orphans; Python and SBCL threads) to one CPU, computes while they do (so its
game's process waits for the CPU behind them), and keeps them from running or being
runnable whenever a monitor might look: blocked on a lock, asleep, stopped. It answers
(D D D) only after more than 1.1 times the limit of CPU in the call, its helpers' included.
Against a monitor that gave back the process's whole-life wait unless
another of its tasks was runnable at the deadline, every one of them answered D D D with
no fault; now the CPU of all the agent runs is its own and only wall time it did not use
a CPU for can be given back, so each call is a timeout, by construction, whatever the load:
its own time is at least the CPU it used.

And the other side: an honest agent beside a CPU-crowding agent in another game (and
other programs) keeps getting its wait back. It needs a tenth of the limit of CPU a call,
while the crowded CPU stretches its calls well past the limit: load only stretches them
more, and the cap (5 times the limit) is far away.
"""
from __future__ import annotations

import os
import time

import pytest

from harness.agents.specs import file_spec
from harness.core.rules import Payoffs
from harness.isolation.handles.agent_handle import GameStart
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, IN_CI
from test_own_time import AGENTS as OWN_TIME_AGENTS, LIMIT, NEED, crowded_cpu

pytestmark = pytest.mark.slow  # hosts, and a loaded CPU

HOSTILE = AGENTS / "hostile"
THREADS = ["CrowdBehindLock", "CrowdAsleepAtDeadline", "LispCrowdBehindLock"]
PROCESSES = ["CrowdOfStoppedChildren", "CrowdOfOrphans"]
GAMES, TURNS = 2, 2   # the honest agent's first call finds its game's process (in its
                      # host's first game, below the host; then from its zygote), the next
                      # reuses it


@pytest.fixture(params=["process", "sandbox"])
def mode(request):
    if request.param == "sandbox":
        request.getfixturevalue("sandboxed")
    return request.param


@pytest.fixture(params=["a cgroup", "no cgroup"])
def grouping(request, monkeypatch):
    """With a cgroup per agent (its processes' CPU counted together), or without one
    (forking denied; its game's process counted, every thread): the monitor's choice is
    made in this process, when each host starts."""
    from harness.isolation import cgroups

    if request.param == "a cgroup" and cgroups.available() is None:
        if IN_CI:
            pytest.fail("no cgroup can be made here", pytrace=False)
        pytest.skip("no cgroup can be made here (a root monitor, or a delegated v2 group)")
    if request.param == "no cgroup":
        monkeypatch.setattr(cgroups, "available", lambda: None)
    return request.param


def agent_file(name):
    path = next(HOSTILE.glob(f"{name}.*"))
    if path.suffix == ".lisp":
        from conftest import _need

        _need("sbcl", "apt-get install sbcl")
    return path


def first_call(path, mode):
    handle = open_handle(file_spec(path), Isolation(mode, LIMIT))
    try:
        handle.start_game(GameStart(1, 3, Payoffs()))
        handle.request(None)
        return handle.collect()
    finally:
        handle.close()


@pytest.mark.parametrize("name", THREADS)
def test_threads_that_hide_as_the_deadline_passes_buy_no_time(name, mode, grouping):
    """The issue's example (CrowdBehindLock, and in Common Lisp with sb-thread), and a
    helper thread asleep around the deadline instead of blocked."""
    reply = first_call(agent_file(name), mode)
    assert reply.moves != "DDD", f"{name} computed past its limit and answered in time"
    assert reply.fault is not None and reply.fault.kind == "timeout", reply


@pytest.mark.parametrize("name", PROCESSES)
def test_processes_that_hide_as_the_deadline_passes_buy_no_time(name, mode, grouping):
    """Children stopped across the deadline, and orphans (not its children, adopted by
    the game's first process or the zygote) asleep around it. With no cgroup they may not
    fork at all."""
    reply = first_call(agent_file(name), mode)
    assert reply.moves != "DDD", f"{name} computed past its limit and answered in time"
    assert reply.fault is not None, reply
    assert reply.fault.kind == ("timeout" if grouping == "a cgroup" else "exception"), reply


# Busy loops beside it on its CPU, so that its calls take about twice the limit: each loop
# is a session of its own, which the kernel weighs as one (an autogroup); with cgroups the
# agents' groups share one weight (the monitor's group) between them, so the honest agent
# gets half of that, beside the crowding agent's group.
BUSY = {"a cgroup": 9, "no cgroup": 18}


@pytest.mark.parametrize("language", ["python", "lisp"])
def test_an_honest_agent_beside_a_crowding_agent_in_another_game_gets_its_wait_back(
        tmp_path, mode, grouping, language):
    if language == "lisp":
        agent_file("LispCrowdBehindLock")   # SBCL is needed
    name, text = OWN_TIME_AGENTS[language, "honest"]
    honest_path = tmp_path / name
    honest_path.write_text(text, encoding="utf-8")
    isolation = Isolation(mode, LIMIT)
    with crowded_cpu(BUSY[grouping]) as cpu:
        honest = open_handle(file_spec(honest_path), isolation)
        crowder = open_handle(file_spec(agent_file("CrowdBehindLock")), isolation)
        try:
            # else the test would pass without checking anything
            assert os.sched_getaffinity(honest.host.process.pid) == {cpu}
            replies, slowest = [], 0.0
            for game in range(GAMES):
                honest.start_game(GameStart(1 + game, 3, Payoffs()))
                crowder.start_game(GameStart(1 + game, 3, Payoffs()))
                for turn in range(TURNS):
                    last = None if turn == 0 else ("CCC", "CCC")
                    started = time.monotonic()
                    crowder.request(last)
                    honest.request(last)
                    replies.append(honest.collect())
                    slowest = max(slowest, time.monotonic() - started)
                    crowded = crowder.collect()
                    assert crowded.fault is not None and crowded.fault.kind == "timeout"
                honest.end_game()
                crowder.end_game()
        finally:
            crowder.close()
            honest.close()
    assert [(reply.moves, reply.fault) for reply in replies] == [("CCC", None)] * GAMES * TURNS
    # its wall time over the limit (else nothing was given back), its CPU far under it
    assert slowest > LIMIT > 5 * NEED
