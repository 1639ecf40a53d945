"""Agents that attack the host line protocol itself (issue 11, section 1).

Agent code runs in its host's process, so it can find the protocol's pipes
(/proc/self/fd), the token that marks replies (/proc/self/environ keeps the environment
the process started with), and the host's own state: the monitor must hold whatever
arrives to the protocol, and never block on a host in either direction. Each agent is a
real file in tests/agents/hostile/, played through the real handles in real processes,
under `process` and `sandbox`. Against the monitor before issue 11, EarlyReplier and
PipeStuffer hung it for ever, NewlineFlooder kept it reading at full CPU for ever, and
DoubleReplier and JunkThread played without a fault.
"""
from __future__ import annotations

import pytest

from conftest import AGENTS, IN_CI
from harness import sandbox
from harness.agents import builtin_spec, file_spec
from harness.game import play_game
from harness.handles.opening import Isolation, open_handle
from harness.rules import FlipParams, GameParams

HOSTILE = AGENTS / "hostile"
VIOLATION = "protocol violation: "


@pytest.fixture(params=["process", "sandbox"])
def mode(request):
    if request.param == "sandbox":
        found = sandbox.support()
        if found.flavor is None:
            if IN_CI:
                pytest.fail(f"the sandbox does not run in CI: {found.reason}", pytrace=False)
            pytest.skip(found.reason)
    return request.param


def faults_per_game(file, mode, turns, games=2, per_turn=3, timeout=0.5):
    """[(turn, Fault)] of the agent in each of `games` games against tit-for-tat, one
    handle (so its processes are replaced between games as in a tournament)."""
    params = GameParams(flip=FlipParams(0.0, 0.0), timeout=timeout, moves_per_turn=per_turn)
    isolation = Isolation(mode, timeout)
    agent = open_handle(file_spec(file), isolation)
    other = open_handle(builtin_spec("titfortat"), isolation)
    first, second = sorted([agent, other], key=lambda handle: handle.name)
    side = "a" if first is agent else "b"
    try:
        return [play_game(first, second, turns, seed, params).faults(side)
                for seed in range(1, games + 1)]
    finally:
        agent.close()
        other.close()


def assert_one_violation_per_game(games, what):
    for faults in games:
        assert len(faults) == 1, faults       # then out: the default answer, no new faults
        _turn, fault = faults[0]
        assert fault.kind == "invalid"
        assert fault.message.startswith(VIOLATION) and what in fault.message, fault.message
        assert "process killed" in fault.message


def test_replies_written_ahead_of_the_requests_are_a_violation(mode):
    """EarlyReplier's thread writes replies as fast as the pipe takes them while its call
    never returns; 400 turns would fill the request pipe it shrank to one page."""
    games = faults_per_game(HOSTILE / "EarlyReplier.py", mode, turns=400)
    assert_one_violation_per_game(games, "repl")
    assert all(turn <= 2 for faults in games for turn, _fault in faults)


def test_a_host_that_does_not_take_its_requests_is_a_timeout(mode):
    """PipeStuffer answers each request as it arrives, without reading it: with 100 moves
    per turn its one-page request pipe is full after about 20 turns."""
    games = faults_per_game(HOSTILE / "PipeStuffer.py", mode, turns=40, per_turn=100)
    faults = [fault for game in games for _turn, fault in game]
    assert any(fault.kind == "timeout" and
               fault.message.startswith("did not take its request within 0.5 s")
               for fault in faults), faults
    assert all(fault.kind == "timeout" or fault.message.startswith(VIOLATION)
               for fault in faults)


def test_a_second_reply_to_one_request_is_a_violation(mode):
    games = faults_per_game(HOSTILE / "DoubleReplier.py", mode, turns=5)
    assert_one_violation_per_game(games, "repl")


@pytest.mark.parametrize("name", ["NewlineFlooder", "JunkThread"])
def test_junk_on_the_reply_pipe_past_a_small_allowance_is_a_violation(mode, name):
    games = faults_per_game(HOSTILE / f"{name}.py", mode, turns=5)
    assert_one_violation_per_game(games, "lines that are not replies")


def test_a_lisp_agent_flooding_the_protocol_with_interrupts_off_is_a_violation(mode, sbcl):
    games = faults_per_game(HOSTILE / "LispFlooder.lisp", mode, turns=5, timeout=1.0)
    assert_one_violation_per_game(games, "lines that are not replies")
