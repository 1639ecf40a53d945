"""An agent's kind is one typed notion (harness.agents.specs.Kind), spelled in the record and
the JSON as it always was; a Language says whether its runtime is here (and, if not, the
fix), which version of it plays (stamped on the results: the JSON and the record) and how
its host's dying words read."""
from __future__ import annotations

import json
import os
import platform
import sqlite3
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from harness.agents.specs import Kind

from conftest import ROOT, run_cli

STUDENTS = ROOT / "student_agents"
ONE_ROUND = ["--seed", "3", "--length", "3", "4", "--max-rounds", "1"]
PYTHON_VERSION = f"Python {platform.python_version()}"


@pytest.fixture
def qtable(tmp_path):
    from harness.agents.qtable import Model, save_model

    model = tmp_path / "q.json"
    save_model(Model.untrained(1), model)
    return model


# -- kinds ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind, source", [
    (Kind.BUILTIN, "builtin"), (Kind.BUILTIN, "titfortat"),   # a population's copy
    (Kind.MEMORY, "memory:0101"), (Kind.QTABLE, "qtable:/models/q.json"),
    (Kind.CALLABLE, "callable"), (Kind.LLM, "llm:tutor"), (Kind.REPL, "repl")])
def test_every_kind_is_read_back_from_its_spelling(kind, source):
    assert Kind.of(kind.spelling, source) is kind


def test_a_file_is_spelled_by_its_language_and_an_unknown_word_is_no_kind():
    assert Kind.of("lisp", "BrownChen.lisp") is Kind.FILE
    for word in ("file", "memory", "qtable", "unknown", "Python", ""):
        assert Kind.of(word, "x") is Kind.UNKNOWN


def test_the_record_keeps_each_kind_and_its_spelling(tmp_path, qtable):
    """A run of every kind a record can hold: its JSON and its record spell them as before
    (built-ins and strategies "builtin", a file its language), and what a resumed run reads
    back from the record is the same kinds."""
    from harness.run.tournament_session import recorded_specs
    from harness.store.reader import Record

    record = tmp_path / "run.sqlite"
    agents = ["titfortat", "memory:0110", f"qtable:{qtable}", STUDENTS / "AdamsBrown.py"]
    status, out, err = run_cli("tournament", *agents, *ONE_ROUND, "--isolation", "none",
                               "--db", record, "--format", "json")
    assert status == 0, err
    spelled = {agent["name"]: agent["language"] for agent in json.loads(out)["agents"]}
    assert list(spelled.values()) == ["builtin", "builtin", "builtin", "python"]
    with Record(record) as read:
        assert [e.spec.language for e in read.result().entrants] == list(spelled.values())
        kinds = [spec.kind for spec in recorded_specs(read)]
    assert kinds == [Kind.BUILTIN, Kind.MEMORY, Kind.QTABLE, Kind.FILE]
    status, shown, err = run_cli("show", record, "--format", "json")
    assert status == 0, err
    assert [a["language"] for a in json.loads(shown)["agents"]] == list(spelled.values())


# -- can it run here? -----------------------------------------------------------------------
def test_a_language_without_its_runtime_says_so_and_the_fix(tmp_path):
    """A PATH without sbcl (a real interpreter started with it): Lisp cannot run, says why
    in one line, and has no runtime version; Python can."""
    code = ("import json; from harness.agents.lang import LANGUAGES\n"
            "print(json.dumps({name: [bool(l.can_run()), l.can_run().reason, "
            "l.runtime_version()] for name, l in LANGUAGES.items()}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PATH=str(tmp_path),
                                                PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    runs, why, version = found["lisp"]
    assert not runs and version is None
    assert "SBCL" in why and "apt-get install sbcl" in why and "\n" not in why
    assert found["python"] == [True, "", PYTHON_VERSION]


def test_a_lisp_agent_without_sbcl_is_a_load_error_naming_the_fix(tmp_path):
    """The tournament still runs; the Lisp agent does not load, with the language's reason,
    and the results record that no SBCL played (its version: null)."""
    env = dict(os.environ, PATH=str(tmp_path), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "harness", "tournament", "titfortat",
                           str(STUDENTS / "BrownChen.lisp"), *ONE_ROUND, "--isolation",
                           "process", "--format", "json"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    [lisp] = [agent for agent in result["agents"] if agent["language"] == "lisp"]
    assert lisp["status"] == "disqualified" and "apt-get install sbcl" in lisp["message"]
    assert result["runtimes"] == {"python": PYTHON_VERSION, "lisp": None}


# -- the versions, with the results ---------------------------------------------------------
def test_runtime_versions_are_in_the_json_and_the_record(tmp_path):
    record = tmp_path / "run.sqlite"
    status, out, err = run_cli("tournament", "titfortat", STUDENTS / "AdamsBrown.py",
                               STUDENTS / "GarciaHoffman.hy", *ONE_ROUND,
                               "--isolation", "none", "--db", record, "--format", "json")
    assert status == 0, err
    runtimes = json.loads(out)["runtimes"]
    assert list(runtimes) == ["python", "hy"] and runtimes["python"] == PYTHON_VERSION
    from importlib.metadata import version

    assert runtimes["hy"] == f"Hy {version('hy')}, hyrule {version('hyrule')}"
    with sqlite3.connect(record) as connection:
        [(kept,)] = connection.execute("SELECT runtimes FROM run")
    assert json.loads(kept) == runtimes
    status, shown, err = run_cli("show", record, "--format", "json")
    assert status == 0, err
    assert json.loads(shown)["runtimes"] == runtimes


def test_a_lisp_agent_records_the_sbcl_that_played_it(tmp_path, sbcl):
    record = tmp_path / "run.sqlite"
    status, out, err = run_cli("tournament", "titfortat", STUDENTS / "BrownChen.lisp",
                               *ONE_ROUND, "--isolation", "process", "--db", record,
                               "--format", "json")
    assert status == 0, err
    said = subprocess.run(["sbcl", "--version"], capture_output=True, text=True,
                          timeout=60).stdout.strip()
    assert json.loads(out)["runtimes"] == {"python": PYTHON_VERSION, "lisp": said}
    status, shown, err = run_cli("show", record, "--format", "json")
    assert json.loads(shown)["runtimes"]["lisp"] == said


def test_a_record_from_before_runtimes_reads_with_none(tmp_path):
    record = tmp_path / "run.sqlite"
    status, _, err = run_cli("tournament", "titfortat", "random", *ONE_ROUND,
                             "--isolation", "none", "--db", record)
    assert status == 0, err
    with sqlite3.connect(record) as connection:
        connection.execute("ALTER TABLE run DROP COLUMN runtimes")
    status, shown, err = run_cli("show", record, "--format", "json")
    assert status == 0, err
    assert json.loads(shown)["runtimes"] is None


@pytest.mark.parametrize("kept", ["[1]", "not json", '{"lisp": 7}', '{"lisp": "' + "x" * 999
                                  + '"}'])
def test_runtimes_a_record_was_edited_to_hold_are_one_line(tmp_path, kept):
    record = tmp_path / "run.sqlite"
    status, _, err = run_cli("tournament", "titfortat", "random", *ONE_ROUND,
                             "--isolation", "none", "--db", record)
    assert status == 0, err
    with sqlite3.connect(record) as connection:
        connection.execute("UPDATE run SET runtimes = ?", (kept,))
    status, _, err = run_cli("show", record)
    assert status == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "run.runtimes" in err


@given(st.one_of(st.none(), st.text(max_size=300), st.binary(max_size=50),
                 st.dictionaries(st.text(max_size=20), st.one_of(
                     st.none(), st.text(max_size=20), st.integers())).map(json.dumps)))
def test_any_runtimes_column_reads_as_versions_or_one_line(text):
    from harness.core.errors import HarnessError
    from harness.store.reader import recorded_runtimes

    try:
        found = recorded_runtimes(text, "run.sqlite")
    except HarnessError as error:
        assert "\n" not in str(error)
        return
    assert found is None or all(isinstance(name, str) and (v is None or isinstance(v, str))
                                for name, v in found.items())


# -- crash output -----------------------------------------------------------------------------
def test_each_language_reads_its_own_dying_words():
    from harness.agents.lang import LANGUAGES

    sbcl_said = ("fatal error encountered in SBCL pid 12 tid 12:\nHeap exhausted, game over."
                 "\n\n   0: fp=0x7f3a pc=0x52 Foreign function lose\n"
                 "   1: fp=0x7f3b pc=0x53 (SB-KERNEL::HEAP-EXHAUSTED-ERROR 32 32)\n\n")
    assert LANGUAGES["lisp"].last_words(sbcl_said) == "Heap exhausted, game over."
    # the compiler's notes about the file, which the host writes to the same output as the
    # game starts, are not what the process died of
    assert LANGUAGES["lisp"].last_words(
        "; style warning: The variable SCORE is defined but never used.\n") is None
    assert LANGUAGES["lisp"].last_words(
        "oops\n; warning: undefined variable: *X*\n; style warning: unused\n") == "oops"
    python_said = ('Traceback (most recent call last):\n  File "A.py", line 3, in A\n'
                   "MemoryError\n\n")
    assert LANGUAGES["python"].last_words(python_said) == "MemoryError"
    for language in LANGUAGES.values():
        assert language.last_words("\n \n") is None


def test_resume_keeps_the_runtimes_the_run_started_with_and_says_what_changed(tmp_path):
    from test_records_resume import cut_back

    record = tmp_path / "run.sqlite"
    status, _, err = run_cli("tournament", "titfortat", "random", "defect", "--seed", "5",
                             "--length", "3", "4", "--isolation", "none", "--db", record)
    assert status == 0, err
    cut_back(record, 1)
    with sqlite3.connect(record) as connection:
        connection.execute("UPDATE run SET runtimes = ?",
                           (json.dumps({"python": "Python 2.7.18"}),))
    status, out, err = run_cli("resume", record, "--format", "json", "--isolation", "none")
    assert status == 0, err
    assert json.loads(out)["runtimes"] == {"python": "Python 2.7.18"}   # as the record says
    [note] = [line for line in err.splitlines() if "resumed after round 1" in line]
    assert f"Python 2.7.18 then, {PYTHON_VERSION} now" in note
