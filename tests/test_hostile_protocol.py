"""Hosts and agents that attack the host line protocol itself (issue 11, section 1).

Agent code can find the pipes it can reach (/proc/self/fd) and often the token that marks
replies (/proc/self/environ keeps the environment the process started with). Where agent
code runs in the process that holds the monitor's pipes (the SBCL host), it can break the
protocol itself: the rogue host (tests/agents/rogue/host.py) does each such thing from a
real process, and LispFlooder does it from a real SBCL host. Python agents run in a game's
child of a zygote and reach only the pipes to the zygote: the hostile agents in
tests/agents/hostile/ try the same there. Whatever they do, the monitor must never block,
every turn ends with a move or a fault, and nothing forged is played. Against the monitor
before issue 11, the early and stuffer hosts hung it for ever, the newline flood kept it
reading for ever at full CPU, and double replies and junk went unnoticed.
"""
from __future__ import annotations

import os
import sys

import pytest

from harness import sandbox
from harness.agents import builtin_spec, file_spec
from harness.game import play_game
from harness.handles.opening import Isolation, open_handle
from harness.handles.process import ProcessHandle
from harness.rules import FlipParams, GameParams

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


def assert_nothing_forged_played(games):
    """The forged replies say all D; tit-for-tat's opponent cooperates by default."""
    for game in games:
        assert all(fault is not None or set(moves) == {"C"} for _turn, fault, moves in game)
        assert_only_its_own_faults(game)


def assert_only_its_own_faults(game):
    """Faults of the agent's own doing; a crash only as the zygote's verdict on a game's
    process that broke the one-reply rule (the host ends saying why, and is replaced)."""
    for _turn, fault in faults(game):
        assert fault.kind in ("invalid", "timeout", "exception", "crash"), fault
        if fault.kind == "crash":
            assert "protocol violation" in fault.message, fault.message


# -- a host that breaks the protocol itself -----------------------------------------------
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
    """The flood reaches only the pipe to its zygote, which relays one line per request and
    ends the game's processes at a second one: one crash that says why, then the default
    answer for the rest of the game."""
    games = faults_per_game(HOSTILE / "LispFlooder.lisp", mode, turns=5, timeout=1.0)
    for game in games:
        found = faults(game)
        assert len(found) == 1, found
        assert found[0][1].kind == "crash" and "protocol violation" in found[0][1].message


# -- Python agents attacking the pipes they can reach -------------------------------------
@pytest.mark.parametrize("name,per_turn,turns", [
    ("EarlyReplier", 3, 400), ("PipeStuffer", 100, 40), ("DoubleReplier", 3, 5)])
def test_python_agents_forging_marked_replies_never_play_them(mode, name, per_turn, turns):
    """Against the monitor before issue 11, EarlyReplier and PipeStuffer hung it for ever
    (a blocking write of a request the host never read)."""
    games = faults_per_game(HOSTILE / f"{name}.py", mode, turns=turns, per_turn=per_turn)
    assert_nothing_forged_played(games)


@pytest.mark.parametrize("name", ["NewlineFlooder", "JunkThread"])
def test_python_agents_flooding_their_pipes_cost_only_their_own_turns(mode, name):
    """Under the zygote a game's child reaches only its pipe to the zygote, which relays one
    line per request and ends the game's processes at a second one."""
    games = faults_per_game(HOSTILE / f"{name}.py", mode, turns=5)
    assert all(len(game) == 5 for game in games)
    for game in games:
        assert_only_its_own_faults(game)


# An agent whose output line is not ended when the zygote ends its game (a write to a full
# stderr pipe cut short by the kill leaves just that, as the Forger's 10000-byte line did
# under load, when new pipes get a smaller buffer once a user's pipes hold
# /proc/sys/fs/pipe-user-pages-soft pages): it leaves the line unended on purpose, then
# writes a second reply where its game's process answers.
UNENDED = '''import os
import stat
import time


def Unended(hist, score):
    os.write(1, b"M" * 1000)
    for fd in range(3, 1024):   # its descriptors, found without /proc
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, b"MOVES DDD\\nMOVES DDD\\n")
        except OSError:
            pass
    time.sleep(30)
    return ["C", "C", "C"]
'''


def test_the_zygotes_verdict_is_read_after_an_unended_line_of_the_agents(mode, tmp_path):
    """The verdict that ends a game's processes begins a line of its own, so the monitor
    finds it as the host's last words however the agent's output stopped."""
    agent = tmp_path / "Unended.py"
    agent.write_text(UNENDED, encoding="utf-8")
    for game in faults_per_game(agent, mode, turns=3, timeout=5.0):
        found = faults(game)
        assert len(found) == 1, found
        assert found[0][1].kind == "crash", found
        assert "protocol violation: more than one reply" in found[0][1].message, found


def test_a_host_that_ended_past_the_deadline_is_a_crash_that_says_why():
    """A host that says why it ends (the zygote's verdict) and exits, seen only once the
    call's deadline has passed, as a loaded machine makes it: its end is found on the reply
    pipe, and its last words, still unread in its stderr pipe, are the crash's reason (they
    were lost: the Forger's crash in test_hostile.py then read "MMMM..." or nothing)."""
    import time

    handle = ProcessHandle("Rogue", [sys.executable, str(ROGUE_HOST), "verdict"],
                           dict(os.environ), 0.2)
    try:
        from harness.handles.base import GameStart
        from harness.rules import Payoffs

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
