"""Agents that hang, crash, raise or lie: each fault recorded by kind, the game goes on."""
import pytest

from harness.agents.specs import builtin_spec, file_spec
from harness.core.errors import LoadError
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, play_one

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

QUIET = GameParams(flip=FlipParams(0.0, 0.0))
TIMEOUT = 0.5
CORE = AGENTS / "core"


def game(name, opponent="titfortat", mode="process", turns=6, params=QUIET, seed=1):
    record, side, _handle = play_one(file_spec(CORE / f"{name}.py"), opponent, turns, params,
                                     mode, seed, TIMEOUT)
    return record, side


def kinds(record, side):
    return [fault.kind for _turn, fault in record.faults(side)]


def test_a_hanging_agent_is_killed_at_the_deadline_and_replaced():
    record, side = game("Hanger", turns=6)
    assert len(record.turns) == 6
    assert kinds(record, side) == ["timeout"] * 5
    messages = [fault.message for _turn, fault in record.faults(side)]
    assert all("process killed and replaced" in m for m in messages[:3])
    assert all(m == "not asked: 3 timeouts in a row this game" for m in messages[3:])
    other = "b" if side == "a" else "a"
    assert kinds(record, other) == []
    first_turn = record.turns[0]
    assert (first_turn.intended_a if side == "a" else first_turn.intended_b) == "CCC"


def test_a_process_that_dies_is_one_crash_then_default_answers_then_a_new_process():
    params = GameParams(flip=FlipParams(0.0, 0.0), default_answer="C")
    isolation = Isolation("process", 1.0)
    crasher = open_handle(file_spec(CORE / "Crasher.py"), isolation)
    defector = open_handle(builtin_spec("defect"), isolation)
    try:
        for seed in (1, 2):  # the second game gets a fresh process
            record = play_game(crasher, defector, 5, seed, params)
            assert kinds(record, "a") == ["crash"]
            assert [t.intended_a for t in record.turns] == ["DDD", "DDD", "CCC", "CCC", "CCC"]
            assert "exited with status 3" in record.faults("a")[0][1].message
    finally:
        crasher.close()
        defector.close()


PIPE_CLOSERS = {   # each closes every descriptor past stderr, its reply pipe among them
    ".py": ("import os\n\n\ndef PipeCloser(hist, score):\n"
            "    os.closerange(3, 1024)\n    return ['C', 'C', 'C']\n", "OSError"),
    ".lisp": ("(defun PipeCloser (hist score)\n  (declare (ignore hist score))\n"
              "  (loop for fd from 3 below 1024 do (sb-unix:unix-close fd))\n  '(C C C))\n",
              "STREAM-ERROR"),
}


@pytest.mark.parametrize("mode", ["process", "sandbox"])
@pytest.mark.parametrize("suffix", sorted(PIPE_CLOSERS))
def test_an_agent_that_breaks_its_hosts_pipes_is_a_crash_that_says_why(tmp_path, mode, suffix):
    """The host's own code in the game's process fails (here: the agent closed its pipes):
    the process exits with status 70 and says why on stderr first, and the fault quotes
    that line, not the status alone."""
    source, error = PIPE_CLOSERS[suffix]
    agent = tmp_path / f"PipeCloser{suffix}"
    agent.write_text(source)
    record, side, _handle = play_one(file_spec(agent), "titfortat", 3, QUIET, mode, 1, 5.0)
    faults = record.faults(side)
    assert [fault.kind for _turn, fault in faults][:1] == ["crash"]
    message = faults[0][1].message
    assert "status 70" in message and "pdharness host: " in message and error in message


@pytest.mark.parametrize("mode", ["none", "process"])
def test_an_exception_is_a_fault_with_its_message(mode):
    record, side = game("Raiser", mode=mode, turns=4)
    faults = record.faults(side)
    assert [turn for turn, _ in faults] == [2, 4]
    assert faults[0][1].kind == "exception"
    # the agent's own frame: its file, line and source line, never the harness's
    assert faults[0][1].message == ("ValueError: odd history, at Raiser.py:3: "
                                    "raise ValueError(\"odd history\")")
    assert [t.intended_a if side == "a" else t.intended_b for t in record.turns] == [
        "CDC", "CCC", "CDC", "CCC"]


@pytest.mark.parametrize("mode", ["none", "process"])
def test_invalid_answers_are_faults_that_say_what_was_wrong(mode):
    record, side = game("Liar", mode=mode, turns=5)
    faults = record.faults(side)
    assert [f.kind for _, f in faults] == ["invalid"] * 5
    messages = [f.message for _, f in faults]
    assert "returned 2 moves" in messages[0]
    assert "'X' is not a move" in messages[1]
    assert "None" in messages[2]
    assert "dict" in messages[3]
    assert "more than 3" in messages[4]


@pytest.mark.parametrize("mode", ["none", "process"])
def test_lower_case_answers_play_with_a_warning(mode):
    record, side = game("Lowercase", mode=mode, turns=2)
    assert kinds(record, side) == []
    assert record.turns[0].intended_b == "CDC" if side == "b" else record.turns[0].intended_a == "CDC"
    assert "non-canonically" in record.warnings[side]


@pytest.mark.parametrize("mode", ["none", "process"])
def test_hist_and_score_agree_with_the_rules_every_call(mode):
    params = GameParams(flip=FlipParams(0.3, 0.0))
    record, side = game("Checker", opponent="random", mode=mode, turns=30, params=params)
    assert kinds(record, side) == []


@pytest.mark.parametrize("mode", ["none", "process"])
@pytest.mark.parametrize("name,reason", [("Broken", "Broken.py:1: syntax error"),
                                         ("Misnamed", "defines no function named Misnamed "
                                          r"\(.*\); it defines SomethingElse: name the file "
                                          r"SomethingElse\.py$")])
def test_files_that_do_not_load_say_why(mode, name, reason):
    with pytest.raises(LoadError, match=reason):
        open_handle(file_spec(CORE / f"{name}.py"), Isolation(mode))


@pytest.mark.parametrize("path", [CORE / "Dawdler.py", AGENTS / "hy" / "HyDawdler.hy"])
def test_an_agent_in_the_monitor_late_three_times_in_a_row_is_not_asked_again_that_game(
        path, capfd):
    """In `none` mode a late call cannot be stopped, only found late when it returns: the
    3-timeouts rule holds there too, so a slow agent costs three late calls a game, not
    one per turn. Its next game asks it again."""
    params = GameParams(flip=FlipParams(0.0, 0.0))
    agent = open_handle(file_spec(path), Isolation("none", 0.05))
    other = open_handle(builtin_spec("titfortat"), Isolation("none", 0.05))
    capfd.readouterr()
    try:
        first, second = sorted([agent, other], key=lambda handle: handle.name)
        side = "a" if first is agent else "b"
        records = [play_game(first, second, 6, seed, params) for seed in (1, 2)]
    finally:
        agent.close()
        other.close()
    for record in records:
        assert kinds(record, side) == ["timeout"] * 6
        messages = [fault.message for _turn, fault in record.faults(side)]
        assert all(m.startswith("answered after ") for m in messages[:3])
        assert messages[3:] == ["not asked: 3 timeouts in a row this game"] * 3
        assert [t.intended_a if side == "a" else t.intended_b for t in record.turns] == [
            "CCC"] * 6
    # its prints are kept by its handle, not written to the monitor's stdout
    assert agent.captured_output().count(f"{path.stem} called") == 3 * 2
    assert capfd.readouterr().out == ""
