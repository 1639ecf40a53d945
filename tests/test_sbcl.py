"""Common Lisp agents on real SBCL, through the same agent seam as every other agent."""
import json

import pytest

from conftest import AGENTS, intended_moves, play_one, run_cli
from harness.agents import file_spec
from harness.errors import LoadError
from harness.handles.opening import Isolation, open_handle
from harness.rules import FlipParams, GameParams

LISP = AGENTS / "lisp"
QUIET = GameParams(flip=FlipParams(0.0, 0.0), timeout=1.0)
pytestmark = pytest.mark.usefixtures("sbcl")


def lisp_game(name, opponent="titfortat", turns=4, params=QUIET, mode="process", seed=1):
    return play_one(file_spec(LISP / f"{name}.lisp"), opponent, turns, params, mode, seed)


intended = intended_moves


@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_hist_is_symbols_and_score_agrees_with_the_rules(mode):
    params = GameParams(flip=FlipParams(0.3, 0.0))
    record, side, _ = lisp_game("LispChecker", "random", turns=25, params=params, mode=mode)
    assert record.faults(side) == []
    assert set(intended(record, side)) == {"DCD"}


def test_the_worked_example_from_the_rules(tmp_path):
    probe = tmp_path / "LispProbe.lisp"
    probe.write_text("(defun LispProbe (hist score) (declare (ignore hist score)) '(C C C))\n")
    check = LISP / "LispChecker.lisp"
    from lisp_bridge.sbcl import base_command
    import subprocess

    form = ("(progn (load \"%s\") (print (LispChecker '((C D) (D C) (D C)) '(10 5))) "
            "(terpri) (sb-ext:exit))" % check)
    done = subprocess.run(base_command() + ["--eval", form], capture_output=True, text=True,
                          timeout=60)
    assert "(D C D)" in done.stdout


def test_prints_go_to_the_captured_output_never_into_the_game():
    record, side, agent = lisp_game("LispChatty")
    assert record.faults(side) == []
    assert intended(record, side) == ["CCD"] * 4
    output = agent.captured_output()
    assert "thinking about 0 moves, score (0 0)" in output
    assert "MOVES DDD" in output


def test_a_hanging_agent_times_out_and_the_game_goes_on():
    params = GameParams(flip=FlipParams(0.0, 0.0), timeout=0.3)
    record, side, _ = lisp_game("LispHanging", turns=4, params=params)
    assert [f.kind for _, f in record.faults(side)] == ["timeout"] * 3
    assert len(record.turns) == 4


def test_a_runtime_error_is_an_exception_fault_with_sbcls_message():
    record, side, _ = lisp_game("LispRaiser", turns=4)
    faults = record.faults(side)
    assert [turn for turn, _ in faults] == [2, 4]
    assert faults[0][1].kind == "exception"
    assert "5" in faults[0][1].message and "LIST" in faults[0][1].message
    assert intended(record, side) == ["CDC", "CCC", "CDC", "CCC"]


def test_stack_exhaustion_is_an_exception_and_the_agent_plays_on():
    record, side, _ = lisp_game("LispDeep", turns=3)
    faults = record.faults(side)
    assert [(turn, f.kind) for turn, f in faults] == [(2, "exception")]
    assert "STACK" in faults[0][1].message.upper()
    assert intended(record, side) == ["DDD", "CCC", "DDD"]


@pytest.mark.parametrize("name,needle", [
    ("LispUnbalanced", "LispUnbalanced.lisp"),
    ("LispUndefined", "undefined function"),
    ("LispNoDefun", "defines no function named LispNoDefun"),
])
def test_files_that_do_not_load_say_why_in_one_line(name, needle):
    with pytest.raises(LoadError) as caught:
        open_handle(file_spec(LISP / f"{name}.lisp"), Isolation("process"))
    message = str(caught.value)
    assert needle.lower() in message.lower()
    assert "\n" not in message


def test_unbalanced_parentheses_name_the_line():
    with pytest.raises(LoadError, match=r"line 1\b|line: 1\b|:1\b"):
        open_handle(file_spec(LISP / "LispUnbalanced.lisp"), Isolation("process"))


def test_strings_and_characters_are_accepted_with_a_warning():
    record, side, _ = lisp_game("LispStrings", turns=2)
    assert record.faults(side) == []
    assert intended(record, side) == ["CDC", "CDC"]
    assert "non-canonically" in record.warnings[side]


def test_bad_answers_are_invalid_faults():
    record, side, _ = lisp_game("LispBadAnswer", turns=4)
    messages = [f.message for _, f in record.faults(side)]
    assert len(messages) == 4
    assert "returned 2 moves" in messages[0]
    assert "X is not a move" in messages[1]
    assert "42" in messages[2]
    assert "returned 4 moves" in messages[3]


def test_random_state_and_globals_replay_from_the_game_seed():
    plays = [intended(lisp_game("LispGambler", "cooperate", turns=12, seed=seed)[0], "a")
             for seed in (3, 4, 3)]
    assert plays[0] == plays[2]
    assert plays[0] != plays[1]
    assert plays[0][0] == "CCC"


def test_without_sbcl_the_agent_is_a_load_error_naming_the_fix(monkeypatch):
    import lisp_bridge.sbcl as sbcl

    monkeypatch.setattr(sbcl, "program", lambda: None)
    with pytest.raises(LoadError, match="apt-get install sbcl"):
        open_handle(file_spec(LISP / "LispChecker.lisp"), Isolation("process"))


def test_a_mixed_python_and_lisp_tournament_from_the_command_line(tmp_path):
    status, out, err = run_cli("tournament", LISP / "LispChecker.lisp",
                               LISP / "LispGambler.lisp", AGENTS / "core" / "Gambler.py",
                               "titfortat", "--seed", "3", "--format", "json",
                               "--isolation", "process")
    assert status == 0, err
    result = json.loads(out)
    assert {a["language"] for a in result["agents"]} == {"lisp", "python", "builtin"}
    assert all(a["status"] == "ok" for a in result["agents"])
    assert all(sum(s["faults"].values()) == 0 for s in result["standings"])
