"""Hosts and agents that attack the host line protocol itself.

Agent code can find the pipes it can reach (among its descriptors) and often the token that
marks replies (/proc/self/environ keeps the environment the process started with, where a
game has a /proc). A game's process answers the monitor itself on its game channel
(docs/DESIGN.md), so agent code can break the protocol there: the rogue host
(tests/agents/rogue/host.py) does each such thing from a real process, LispFlooder from a
real SBCL host, and the hostile agents in tests/agents/hostile/ from a game's process.
Whatever they do, the monitor must never block, every turn ends with a move or a fault,
and no request gets two replies. Against a monitor that trusted its hosts' timing, the early and
stuffer hosts hung it for ever, the newline flood kept it reading for ever at full CPU,
and double replies and junk went unnoticed.
"""
from __future__ import annotations

import os
import sys

import pytest

from harness.agents.specs import builtin_spec, file_spec
from harness.core.errors import LoadError
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation import sandbox
from harness.isolation.handles.opening import Isolation, open_handle
from harness.isolation.handles.process import ProcessHandle

from conftest import AGENTS, IN_CI

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

HOSTILE = AGENTS / "hostile"
ROGUE_HOST = AGENTS / "rogue" / "host.py"
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


def faults_per_game(file, mode, turns, games=2, per_turn=3, timeout=0.5, rogue=None):
    """[(turn, Fault, intended moves)] of the agent (or the rogue host in `rogue` mode) in
    each of `games` games against tit-for-tat, one handle (so its processes are replaced
    between games as in a tournament)."""
    params = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=per_turn)
    isolation = Isolation(mode, timeout)
    if rogue:
        agent = ProcessHandle("Rogue", [sys.executable, str(ROGUE_HOST), rogue],
                              dict(os.environ), timeout)
    else:
        agent = open_handle(file_spec(file), isolation)
    other = open_handle(builtin_spec("titfortat"), isolation)
    first, second = sorted([agent, other], key=lambda handle: handle.name)
    side = "a" if first is agent else "b"
    try:
        games_played = [play_game(first, second, turns, seed, params)
                        for seed in range(1, games + 1)]
    finally:
        agent.close()
        other.close()
    return [[(turn, record.fault_at.get((side, turn - 1)),
              getattr(record.turns[turn - 1], f"intended_{side}"))
             for turn in range(1, turns + 1)] for record in games_played]


def faults(game):
    return [(turn, fault) for turn, fault, _moves in game if fault is not None]


def assert_one_violation_per_game(games, what):
    for game in games:
        found = faults(game)
        assert len(found) == 1, found       # then out: the default answer, no new faults
        _turn, fault = found[0]
        assert fault.kind == "invalid"
        assert fault.message.startswith(VIOLATION) and what in fault.message, fault.message
        assert "process killed" in fault.message


def assert_never_two_replies_taken(games):
    """A game's process answers on its game channel itself, so a reply its agent writes
    there (marked with the token, where /proc/self/environ shows it) is its answer, as
    what its function returns would be. What must hold: one reply per request. The forged
    replies say all D, the function returns all C: once a request got its forged reply,
    the function's second reply is a violation, and the agent is out for the game."""
    for game in games:
        out_from = next((turn for turn, fault, _moves in game
                         if fault is not None and fault.message.startswith(VIOLATION)), None)
        for turn, fault, _moves in game:
            if out_from is not None and turn > out_from:   # the default, and no new fault
                assert fault is None, (turn, fault)
        assert_only_its_own_faults(game)


def assert_only_its_own_faults(game):
    """Faults of the agent's own doing: a protocol violation ends its game's process."""
    for _turn, fault in faults(game):
        assert fault.kind in ("invalid", "timeout", "exception"), fault


# -- a host that breaks the protocol itself -----------------------------------------------
def test_a_host_that_never_says_ready_does_not_load_within_its_start_limit():
    """Waiting for READY is bounded by the start limit, however the wait goes (before
    when the control channel had its own reader, a mute host kept the monitor spinning)."""
    with pytest.raises(LoadError, match="did not finish loading within 0.5 s"):
        ProcessHandle("Rogue", [sys.executable, str(ROGUE_HOST), "mute"], dict(os.environ),
                      0.5, start_timeout=0.5)


def test_replies_written_ahead_of_the_requests_are_a_violation():
    """400 turns would fill the request pipe the host shrank to one page: a violation,
    not a timeout, says the monitor saw the early replies before that. On which turn it
    saw them depends on when the host's writing thread ran (turn 3 on a busy machine), so
    the turn is not pinned."""
    games = faults_per_game(None, "process", turns=400, rogue="early")
    assert_one_violation_per_game(games, "repl")


def test_a_host_that_does_not_take_its_requests_is_a_timeout():
    """With 100 moves per turn the one-page request pipe is full after about 20 turns."""
    games = faults_per_game(None, "process", turns=40, per_turn=100, rogue="stuffer")
    found = [fault for game in games for _turn, fault in faults(game)]
    assert any(fault.kind == "timeout" and
               fault.message.startswith("did not take its request within 0.5 s")
               for fault in found), found
    assert all(fault.kind == "timeout" or fault.message.startswith(VIOLATION)
               for fault in found)


def test_a_second_reply_to_one_request_is_a_violation():
    games = faults_per_game(None, "process", turns=5, rogue="double")
    assert_one_violation_per_game(games, "repl")


@pytest.mark.parametrize("rogue", ["newlines", "junk"])
def test_junk_on_the_reply_pipe_past_a_small_allowance_is_a_violation(rogue):
    games = faults_per_game(None, "process", turns=5, rogue=rogue)
    assert_one_violation_per_game(games, "lines that are not replies")


def test_the_rogue_host_answering_honestly_plays_without_a_fault():
    """The rogue host's protocol is right: what the other tests see is its misbehaviour."""
    games = faults_per_game(None, "process", turns=5, rogue="honest")
    assert all(faults(game) == [] for game in games)


def test_a_lisp_agent_flooding_the_protocol_with_interrupts_off_is_a_violation(mode, sbcl):
    """The flood reaches only its game channel, where the monitor takes one reply per
    request: one violation that says why, its processes killed, then the default answer
    for the rest of the game."""
    games = faults_per_game(HOSTILE / "LispFlooder.lisp", mode, turns=5, timeout=1.0)
    for game in games:
        found = faults(game)
        assert len(found) == 1, found
        assert found[0][1].kind == "invalid" and VIOLATION in found[0][1].message


# -- Python agents attacking the pipes they can reach -------------------------------------
@pytest.mark.parametrize("name,per_turn,turns", [
    ("EarlyReplier", 3, 400), ("PipeStuffer", 100, 40), ("DoubleReplier", 3, 5)])
def test_python_agents_forging_marked_replies_never_get_two_taken(mode, name, per_turn,
                                                                 turns):
    """Against a monitor that trusted its hosts' timing, EarlyReplier and PipeStuffer hung it for ever
    (a blocking write of a request the host never read)."""
    games = faults_per_game(HOSTILE / f"{name}.py", mode, turns=turns, per_turn=per_turn)
    assert_never_two_replies_taken(games)


@pytest.mark.parametrize("name", ["NewlineFlooder", "JunkThread"])
def test_python_agents_flooding_their_pipes_cost_only_their_own_turns(mode, name):
    """A game's process reaches only its own game channel: lines without the token are
    tolerated up to an allowance per request, a flood past it is a violation."""
    games = faults_per_game(HOSTILE / f"{name}.py", mode, turns=5)
    assert all(len(game) == 5 for game in games)
    for game in games:
        assert_only_its_own_faults(game)



def test_a_host_that_ended_past_the_deadline_is_a_crash_that_says_why():
    """A host that says why it ends on stderr (as SBCL's fatal errors do) and exits, seen
    only once the call's deadline has passed, as a loaded machine makes it: its end is
    found on its pipes, and its last words, still unread in its stderr pipe, are the
    crash's reason (they were lost: a crash then read "MMMM..." or nothing)."""
    import time

    handle = ProcessHandle("Rogue", [sys.executable, str(ROGUE_HOST), "verdict"],
                           dict(os.environ), 0.2)
    try:
        from harness.core.rules import Payoffs
        from harness.isolation.handles.agent_handle import GameStart

        handle.start_game(GameStart(agent_seed=1, moves_per_turn=3, payoffs=Payoffs()))
        handle.request(None)
        host = handle.host
        assert host is not None
        host.process.wait(timeout=60)   # it has ended, and nothing read its pipes since
        while time.monotonic() <= handle.deadline:
            time.sleep(0.05)
        reply = handle.collect()
    finally:
        handle.close()
    assert reply.fault is not None and reply.fault.kind == "crash"
    assert reply.fault.message == ("process exited with status 1: "
                                   "protocol violation: its last words")
