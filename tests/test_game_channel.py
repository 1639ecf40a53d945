"""The game channel: a game's process answers the monitor itself, and its host
lives through what that process does.

A game's process that dies, overruns its call or breaks the protocol is ended and replaced
by its zygote (END, ENDED), not by starting a new host: the host's process is the same one
before and after, the replacement is told the game so far (SYNC) and answers the next turn,
and the next game is played by a fresh process of the same host. Real agent files, real
hosts (Python and SBCL), under `process` and `sandbox`.
"""
from __future__ import annotations

import pytest

from harness.agents.specs import builtin_spec, file_spec
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

pytestmark = pytest.mark.slow  # every test here starts agent hosts

# After the first turn (3 moves a turn: hist holds 3 pairs) each misbehaves once, on its
# second turn, and plays C C C otherwise.
AGENTS = {
    ("python", "slow"): ("SlowOnce.py", '''import time


def SlowOnce(hist, score):
    if len(hist) == 3:
        time.sleep(60)
    return ["C", "C", "C"]
'''),
    ("python", "dies"): ("DiesOnce.py", '''import os


def DiesOnce(hist, score):
    if len(hist) == 3:
        os._exit(3)
    return ["C", "C", "C"]
'''),
    ("python", "replies twice"): ("TwiceOnce.py", '''import os
import stat
import sys


def TwiceOnce(hist, score):
    if len(hist) == 3:
        token, frame = None, sys._getframe()
        while frame is not None:   # the token its game's process holds, up the stack
            host = frame.f_locals.get("self")
            if type(host).__name__ == "Zygote":
                token = host.token
            frame = frame.f_back
        for fd in range(3, 256):
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode) and token is not None:
                    os.write(fd, (token + b"MOVES DDD\\n") * 2)   # at once: two replies
            except OSError:
                pass
    return ["C", "C", "C"]
'''),
    # SBCL stops an overlong call itself (TIMEOUT), unless interrupts are off: then the
    # monitor's deadline kills the game's process
    ("lisp", "slow"): ("SlowOnce.lisp", '''(defun SlowOnce (hist score)
  (declare (ignore score))
  (when (= (length hist) 3)
    (sb-sys:without-interrupts (loop)))
  (list 'C 'C 'C))
'''),
    ("lisp", "dies"): ("DiesOnce.lisp", '''(defun DiesOnce (hist score)
  (declare (ignore score))
  (when (= (length hist) 3)
    (sb-ext:exit :code 3 :abort t))
  (list 'C 'C 'C))
'''),
}


@pytest.fixture(params=["process", "sandbox"])
def mode(request):
    if request.param == "sandbox":
        request.getfixturevalue("sandboxed")
    return request.param


def play(tmp_path, language, behaviour, mode, games=2, turns=5):
    """The agent's (turn, fault, intended moves) per game, and its host's process IDs
    before each game and after the last, against tit-for-tat."""
    if language == "lisp":
        from conftest import _need

        _need("sbcl", "apt-get install sbcl")
    name, text = AGENTS[language, behaviour]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    isolation = Isolation(mode, 1.0)
    agent = open_handle(file_spec(path), isolation)
    other = open_handle(builtin_spec("titfortat"), isolation)
    first, second = sorted([agent, other], key=lambda handle: handle.name)
    side = "a" if first is agent else "b"
    params = GameParams(flip=FlipParams(0.0, 0.0))
    hosts, records = [], []
    try:
        for seed in range(1, games + 1):
            hosts.append(agent.host.process.pid)
            records.append(play_game(first, second, turns, seed, params))
        hosts.append(agent.host.process.pid)
    finally:
        agent.close()
        other.close()
    return [[(turn, record.fault_at.get((side, turn)),
              getattr(record.turns[turn], f"intended_{side}")) for turn in range(turns)]
            for record in records], hosts


def faults_of(game):
    return {turn: fault for turn, fault, _moves in game if fault is not None}


@pytest.mark.parametrize("language", ["python", "lisp"])
def test_an_overlong_call_is_ended_and_replaced_from_the_same_host(tmp_path, mode, language):
    games, hosts = play(tmp_path, language, "slow", mode)
    assert len(set(hosts)) == 1, hosts            # no new host was started
    for game in games:
        faults = faults_of(game)
        assert list(faults) == [1], faults
        assert faults[1].kind == "timeout" and "killed and replaced" in faults[1].message
        # the replacement was told turns 1-2 and answers turn 3 on: no fault, C C C
        assert [moves for turn, _fault, moves in game if turn != 1] == ["CCC"] * 4


@pytest.mark.parametrize("language", ["python", "lisp"])
def test_a_game_process_that_dies_is_out_for_its_game_and_the_host_lives(tmp_path, mode,
                                                                          language):
    games, hosts = play(tmp_path, language, "dies", mode)
    assert len(set(hosts)) == 1, hosts
    for game in games:
        faults = faults_of(game)
        assert list(faults) == [1], faults        # then the default, silently
        assert faults[1].kind == "crash" and "status 3" in faults[1].message
        assert game[0][2] == "CCC"                # each game starts with a fresh process


def test_a_second_reply_ends_the_game_process_not_the_host(tmp_path, mode):
    """The agent writes two marked replies in one write (then its function's is a third):
    the monitor reads them together, a second reply to one request. (Replies written
    apart may reach the monitor after its next request, and are then that one's: an
    agent that answers ahead only decides with less to go on.)"""
    games, hosts = play(tmp_path, "python", "replies twice", mode)
    assert len(set(hosts)) == 1, hosts
    for game in games:
        faults = faults_of(game)
        assert len(faults) == 1, faults
        (turn, fault), = faults.items()
        assert turn == 1
        assert fault.kind == "invalid" and fault.message.startswith("protocol violation")
        assert game[0][2] == "CCC"
