"""Common Lisp agents on real SBCL, through the same agent seam as every other agent."""
import json
import os
import re
import subprocess
import sys

import pytest

from harness.agents.lang import LANGUAGES
from harness.agents.specs import file_spec
from harness.core.errors import LoadError
from harness.core.rules import FlipParams, GameParams
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, ROOT, intended_moves, play_one, run_cli

LISP = AGENTS / "lisp"
QUIET = GameParams(flip=FlipParams(0.0, 0.0))
pytestmark = pytest.mark.usefixtures("sbcl")


def lisp_game(name, opponent="titfortat", turns=4, params=QUIET, mode="process", seed=1,
              timeout=1.0):
    return play_one(file_spec(LISP / f"{name}.lisp"), opponent, turns, params, mode, seed,
                    timeout)


intended = intended_moves


@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_hist_is_symbols_and_score_agrees_with_the_rules(mode):
    params = GameParams(flip=FlipParams(0.3, 0.0))
    record, side, _ = lisp_game("LispChecker", "random", turns=25, params=params, mode=mode)
    assert record.faults(side) == []
    assert set(intended(record, side)) == {"DCD"}


def test_the_worked_example_from_the_rules():
    """LispChecker signals an error unless score agrees with hist: the rules' own call."""
    check = LISP / "LispChecker.lisp"
    from lisp_bridge.sbcl import base_command

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
    record, side, _ = lisp_game("LispHanging", turns=4, timeout=0.3)
    assert [f.kind for _, f in record.faults(side)] == ["timeout"] * 3
    assert len(record.turns) == 4


def test_the_monitors_deadline_is_the_only_one(tmp_path):
    """SBCL keeps no timer of its own (it once stopped a call at 0.9 of the limit, by wall
    time, and so on a busy machine before the monitor would): the handle is opened with a
    0.3 s limit, the monitor then allows 60 s, and a call of 0.6 s of CPU answers."""
    from harness.core.rules import Payoffs
    from harness.isolation.handles.agent_handle import GameStart

    path = tmp_path / "Thinker.lisp"
    path.write_text("""(defun Thinker (hist score)
  (declare (ignore hist score))
  (let ((end (+ (get-internal-run-time) (round (* 6/10 internal-time-units-per-second)))))
    (loop while (< (get-internal-run-time) end)))
  (list 'D 'D 'D))
""", encoding="utf-8")
    handle = open_handle(file_spec(path), Isolation("process", 0.3))
    try:
        handle.timeout = 60.0          # the monitor's patience, now far over the limit
        handle.start_game(GameStart(1, 3, Payoffs()))
        handle.request(None)
        reply = handle.collect()
    finally:
        handle.close()
    assert reply.fault is None, reply.fault
    assert reply.moves == "DDD"


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


# -- several games on one host -------------------------------------------------------------
def games_on_one_host(name, seeds, turns=4, per_turn=3, path=None):
    """Moves (or fault kinds) of each game played in turn by ONE host process, with the
    opponent cooperating."""
    from harness.core.rules import Payoffs
    from harness.isolation.handles.agent_handle import GameStart

    handle = open_handle(file_spec(path or LISP / f"{name}.lisp"), Isolation("process"))
    games = []
    try:
        for seed in seeds:
            handle.start_game(GameStart(seed, per_turn, Payoffs()))
            played, last = [], None
            for _turn in range(turns):
                handle.request(last)
                reply = handle.collect()
                played.append(reply.moves or f"{reply.fault.kind}: {reply.fault.message}")
                last = (reply.moves or "C" * per_turn, "C" * per_turn)
            handle.end_game()
            games.append(played)
    finally:
        handle.close()
    return games, handle


def test_every_game_starts_from_the_file_as_loaded_not_from_the_last_game():
    games, _ = games_on_one_host("LispCounter", seeds=[1, 2, 3])
    # defvar counters, hash tables, functions and properties set while playing are gone
    assert games == [["CCC", "DCD", "DCD", "DCD"]] * 3


def test_load_time_random_draws_replay_whatever_the_host_played_before():
    games, _ = games_on_one_host("LispLoadRandom", seeds=[5, 9, 5, 9], turns=6)
    again, _ = games_on_one_host("LispLoadRandom", seeds=[9], turns=6)
    assert games[0] == games[2] and games[1] == games[3] == again[0]
    assert games[0] != games[1]


def test_the_protocol_token_is_not_in_the_agents_environment():
    games, _ = games_on_one_host("LispSnoop", seeds=[1], turns=1)
    assert games == [["CCC"]]


def test_what_an_agent_does_to_its_hist_and_score_stays_with_it():
    record, side, _ = lisp_game("LispVandal", turns=6)
    assert record.faults(side) == []
    assert intended(record, side) == ["CDC"] * 6


def test_a_reload_that_fails_makes_every_call_of_that_game_an_error(tmp_path, shared_folder):
    flag = shared_folder / "fail-now"
    path = tmp_path / "LispFlaky.lisp"
    path.write_text(f'(when (probe-file "{flag}") (error "told to fail"))\n'
                    "(defun LispFlaky (hist score) (declare (ignore hist score)) '(D D D))\n")
    from harness.core.rules import Payoffs
    from harness.isolation.handles.agent_handle import GameStart

    handle = open_handle(file_spec(path), Isolation("process"))
    try:
        replies = []
        for fail in (True, False):
            flag.write_text("") if fail else flag.unlink()
            handle.start_game(GameStart(1, 3, Payoffs()))
            handle.request(None)
            replies.append(handle.collect())
            handle.request(("CCC", "CCC"))
            replies.append(handle.collect())
    finally:
        handle.close()
    assert [r.fault.kind for r in replies[:2]] == ["exception", "exception"]
    assert "reloading failed" in replies[0].fault.message
    assert "told to fail" in replies[0].fault.message
    assert [r.moves for r in replies[2:]] == ["DDD", "DDD"]


@pytest.mark.parametrize("name,moves", [("lisplowercase", "DDD"), ("LispEscaped", "DCC")])
def test_the_agent_function_is_found_whatever_case_it_was_written_in(name, moves):
    games, _ = games_on_one_host(name, seeds=[1], turns=1)
    assert games == [[moves]]


def test_compiler_warnings_do_not_stop_a_file_that_runs_and_are_kept_in_its_log():
    games, handle = games_on_one_host("LispWarnings", seeds=[1], turns=2)
    assert games == [["CCD", "CCD"]]
    assert "warning" in handle.captured_output().lower()
    assert "LISPWARNINGS-SEEN" in handle.captured_output().upper()


# -- load errors: file, line, SBCL's words, one line --------------------------------------
@pytest.mark.parametrize("name,expected", [
    ("LispUnbalanced", r"LispUnbalanced\.lisp:1: .*end of file.*never closed"),
    ("LispStrayParen", r"LispStrayParen\.lisp:3: .*unmatched close parenthesis"),
    ("LispReadError", r"LispReadError\.lisp:6: .*no dispatch function defined for #\\z"),
    ("LispUndefined", r"LispUndefined\.lisp:2: undefined function LISPUNDEFINED-HELPER"),
    ("LispLoadTimeError", r"LispLoadTimeError\.lisp: error while loading: .*refuses to load"),
    ("LispNoDefun", r"LispNoDefun\.lisp: defines no function named LispNoDefun"),
])
def test_load_errors_say_file_line_and_sbcls_message_in_one_line(name, expected):
    with pytest.raises(LoadError) as caught:
        open_handle(file_spec(LISP / f"{name}.lisp"), Isolation("process"))
    message = str(caught.value)
    assert "\n" not in message and len(message) < 600
    assert re.search(expected, message), message


def test_a_load_error_in_a_tournament_marks_only_that_agent(tmp_path):
    status, out, err = run_cli("tournament", LISP / "LispReadError.lisp",
                               LISP / "LispFriendly.lisp", "titfortat", "defect",
                               "--seed", "2", "--length", "4", "6", "--format", "json",
                               "--isolation", "process")
    assert status == 0, err
    agents = {a["name"]: a for a in json.loads(out)["agents"]}
    assert agents["LispReadError"]["status"] == "disqualified"   # does not load
    assert "LispReadError.lisp:6: " in agents["LispReadError"]["message"]
    assert {agents[n]["status"] for n in ("LispFriendly", "titfortat", "defect")} == {"ok"}


def test_without_sbcl_the_tournament_runs_and_names_the_fix(tmp_path):
    """A machine without SBCL: PATH holds no sbcl; the Python and Hy agents still play."""
    command = [sys.executable, "-m", "harness", "tournament", str(LISP / "LispFriendly.lisp"),
               str(AGENTS / "core" / "Counter.py"), "titfortat", "--seed", "4",
               "--length", "3", "5", "--format", "json", "--isolation", "process"]
    env = dict(os.environ, PATH=str(tmp_path), PYTHONPATH=str(ROOT))
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    agents = {a["name"]: a for a in json.loads(done.stdout)["agents"]}
    assert agents["LispFriendly"]["status"] == "disqualified"
    assert agents["LispFriendly"]["message"] == \
        "does not load: SBCL is not installed: apt-get install sbcl"
    assert agents["Counter"]["status"] == agents["titfortat"]["status"] == "ok"


def test_a_mixed_python_hy_and_lisp_tournament_in_the_sandbox(bwrap):
    status, out, err = run_cli("tournament", LISP / "LispFriendly.lisp",
                               LISP / "LispGambler.lisp", ROOT / "student_agents",
                               AGENTS / "core" / "Counter.py", "grudger", "--timeout", "20",
                               "--seed", "8", "--length", "5", "8", "--format", "json")
    assert status == 0, err
    result = json.loads(out)
    assert {a["language"] for a in result["agents"]} == {"python", "hy", "lisp", "builtin"}
    assert all(a["status"] == "ok" for a in result["agents"]), result["agents"]
    assert all(sum(s["faults"].values()) == 0 for s in result["standings"])
    status, again, err = run_cli("tournament", LISP / "LispFriendly.lisp",
                                 LISP / "LispGambler.lisp", ROOT / "student_agents",
                                 AGENTS / "core" / "Counter.py", "grudger", "--jobs", "1",
                                 "--timeout", "20", "--seed", "8", "--length", "5", "8",
                                 "--format", "json")
    assert status == 0, err
    assert json.loads(again)["standings"] == result["standings"]  # same seed, any --jobs


# -- the compiled server ------------------------------------------------------------------
def test_the_server_fasl_is_keyed_by_sbcl_version_and_source(tmp_path, monkeypatch):
    import lisp_bridge.sbcl as sbcl
    from harness.agents.cache import cache_dir

    first = sbcl.server_fasl(cache_dir())
    assert first == sbcl.server_fasl(cache_dir()) and first.stat().st_size > 0
    built = first.stat().st_mtime_ns
    changed = tmp_path / "sbcl_host.lisp"
    changed.write_text(sbcl.SERVER.read_text() + "\n;; a change\n")
    monkeypatch.setattr(sbcl, "SERVER", changed)
    second = sbcl.server_fasl(cache_dir())
    assert second != first and second.exists()
    assert first.stat().st_mtime_ns == built  # the old one was not rebuilt
    monkeypatch.setattr(sbcl, "version", lambda: "SBCL 99.0")
    assert sbcl.server_fasl(cache_dir()) not in (first, second)


def test_a_server_that_does_not_compile_is_one_clear_load_error(tmp_path, monkeypatch):
    import lisp_bridge.sbcl as sbcl

    broken = tmp_path / "sbcl_host.lisp"
    broken.write_text("(defpackage :pdharness-host (:use :common-lisp))\n(defun main (\n")
    monkeypatch.setattr(sbcl, "SERVER", broken)
    with pytest.raises(LoadError) as caught:
        LANGUAGES["lisp"].host_command(str(LISP / "LispChecker.lisp"), "LispChecker", None)
    assert "cannot compile the SBCL host" in str(caught.value)
    assert "\n" not in str(caught.value)
    from harness.agents.cache import cache_dir

    assert not list((cache_dir() / "sbcl").glob("tmp*"))  # no half-written fasl left


def test_heap_exhaustion_is_a_crash_and_the_next_game_has_a_fresh_host(tmp_path, shared_folder):
    from harness.core.rules import Payoffs
    from harness.isolation.handles.agent_handle import GameStart

    flag = shared_folder / "hog-now"
    flag.write_text("")
    path = tmp_path / "LispHog.lisp"
    path.write_text("(defvar *LispHog-hoard* nil)\n"
                    "(defun LispHog (hist score)\n  (declare (ignore score))\n"
                    f'  (when (and hist (probe-file "{flag}"))\n'
                    "    (loop (push (make-list 100000) *LispHog-hoard*)))\n"
                    "  (list 'C 'D 'D))\n")
    # a small address space, so SBCL gets a small heap and fills it fast
    handle = open_handle(file_spec(path), Isolation("process", timeout=30.0,
                                                    memory_limit=400 << 20))
    try:
        games = []
        for _game in range(2):
            handle.start_game(GameStart(1, 3, Payoffs()))
            replies, last = [], None
            for _turn in range(3):
                handle.request(last)
                replies.append(handle.collect())
                last = ("CDD", "CCC")
            games.append(replies)
            flag.unlink(missing_ok=True)
    finally:
        handle.close()
    first, second = games
    assert first[0].moves == "CDD"
    # the outcome, not SBCL's wording: "Heap exhausted, game over" on one machine, "GC
    # invariant lost" on another of the same kind (docs/facts.md)
    assert first[1].fault.kind == "crash"
    assert first[1].fault.message.strip()
    assert first[2].moves is None and first[2].fault is None  # out for the rest of the game
    assert [reply.moves for reply in second] == ["CDD"] * 3


def test_an_agent_in_a_package_of_its_own_sees_its_own_c_and_d():
    games, _ = games_on_one_host("LispPackaged", seeds=[1, 2], turns=3)
    assert games == [["CCC", "CCD", "DDD"]] * 2
