"""Where a user was left guessing: what a run says about faults, a record that
exists, a population's parameters, and the small words, through the installed console
script as a user types it."""
import json
import sqlite3
import subprocess
import textwrap

import pytest

from conftest import AGENTS, console_script

CORE = AGENTS / "core"


def pdharness(*args, cwd=None, timeout=300):
    """The installed console script: (exit status, stdout, stderr)."""
    done = subprocess.run([console_script(), *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def problems_of(table: str) -> list[str]:
    return table[table.index("Agents with problems:"):].splitlines()[1:]


# -- faults: their first message, where it was ---------------------------------------------
def test_the_table_names_each_faulting_agents_first_fault_and_where_it_was(sandboxed):
    """Counts alone ("42 exception") leave a student guessing: under "Agents with problems"
    each agent that faulted has its count and first fault, with the file and line
    (Python) in the one form every message uses."""
    status, out, err = pdharness("tournament", CORE / "Raiser.py", CORE / "Liar.py",
                                 CORE / "Crasher.py", "titfortat", "--seed", "3",
                                 "--length", "5", "5", "-q")
    assert status == 0, err
    shown = {row.split(":")[0].strip(): row for row in problems_of(out)}
    assert set(shown) == {"Raiser", "Liar", "Crasher"}
    assert " faults, the first (exception): ValueError: odd history, at Raiser.py:3: " \
           "raise ValueError" in shown["Raiser"]
    assert ", the first (invalid): returned 2 moves" in shown["Liar"]
    # a crash is its status's reason already: said once, with the count
    assert shown["Crasher"].startswith("  Crasher: crashed: process exited with status 3; ")
    assert "crashed: crashed" not in shown["Crasher"]


def test_a_lisp_error_names_the_function_it_came_from(tmp_path, sbcl, sandboxed):
    """SBCL's message alone (TYPE-ERROR: The value 5 is not of type LIST) does not say
    which of a team's functions failed: the fault says the innermost one of theirs."""
    (tmp_path / "LispDeep.lisp").write_text(textwrap.dedent("""\
        (defun LispDeep-helper (x) (car x))
        (defun LispDeep (hist score)
          (declare (ignore score))
          (if hist (LispDeep-helper (length hist)) (error "first call")))
        """))
    status, out, err = pdharness("tournament", tmp_path / "LispDeep.lisp", "titfortat",
                                 "--seed", "1", "--length", "3", "3", "--db",
                                 tmp_path / "run.sqlite", "-q")
    assert status == 0, err
    with sqlite3.connect(tmp_path / "run.sqlite") as connection:
        messages = {message for (message,) in connection.execute(
            "SELECT message FROM fault WHERE agent = 'LispDeep'")}
    assert "SIMPLE-ERROR: first call, in function LISPDEEP" in messages
    assert any(m.startswith("TYPE-ERROR: ") and m.endswith(", in function LISPDEEP-HELPER")
               for m in messages), messages
    [row] = problems_of(out)
    assert "the first (exception): SIMPLE-ERROR: first call, in function LISPDEEP" in row


@pytest.mark.parametrize("name,source,line", [
    ("AbeBo.py", "def AbeBo(hist, score)\n    return 'CCC'\n", 1),
    ("AbeBo.hy", "(defn AbeBo [hist score]\n  ['C 'C 'C]\n", 1),
])
def test_validate_and_the_tournament_say_file_line_alike(tmp_path, sandboxed, name, source,
                                                         line):
    """`validate` said `AbeBo.py: line 1:` where the tournament said `AbeBo.py:1:`."""
    path = tmp_path / name
    path.write_text(source)
    status, out, _ = pdharness("validate", path)
    assert status == 1 and f"{name}:{line}: " in out and ": line " not in out
    status, out, _ = pdharness("tournament", path, "titfortat", "--length", "2", "2", "-q")
    assert status == 0 and f"{name}:{line}: " in out


def test_lisp_load_errors_say_file_line_as_the_others_do(tmp_path, sbcl, sandboxed):
    path = tmp_path / "AbeBo.lisp"
    path.write_text("(defun AbeBo (hist score)\n  (AbeBo-missing hist))\n")
    status, out, _ = pdharness("tournament", path, "titfortat", "--length", "2", "2", "-q")
    assert status == 0
    # out before round 1 (an agent that does not load is disqualified)
    assert f"disqualified: does not load: {path}:2: undefined function ABEBO-MISSING" in out
    status, out, _ = pdharness("validate", path)
    assert status == 1 and "AbeBo.lisp:2: undefined function ABEBO-MISSING" in out


# -- a record that exists ------------------------------------------------------------------
def test_a_second_run_on_a_complete_record_says_it_is_complete_and_how_to_choose(tmp_path):
    path = tmp_path / "run.sqlite"
    status, _, err = pdharness("tournament", "defect", "titfortat", "--isolation", "none",
                               "--db", path, "-q")
    assert status == 0, err
    before = path.read_bytes()
    status, _, err = pdharness("tournament", "defect", "titfortat", "--isolation", "none",
                               "--db", path, "-q")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert f"{path} holds a complete run" in err and "resume" not in err
    assert f"--db {tmp_path / 'run-2.sqlite'}" in err and f"pdharness show {path}" in err
    assert path.read_bytes() == before


def test_an_unfinished_record_is_offered_to_resume_and_another_file_to_choose(tmp_path):
    path = tmp_path / "run.sqlite"
    status, _, err = pdharness("tournament", "defect", "titfortat", "--isolation", "none",
                               "--db", path, "-q")
    assert status == 0, err
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE run SET finished_at = NULL")
    (tmp_path / "run-2.sqlite").write_text("taken")
    status, _, err = pdharness("tournament", "defect", "--isolation", "none", "--db", path)
    assert status == 2
    assert f"holds an unfinished run (finish it: pdharness resume {path})" in err
    assert f"--db {tmp_path / 'run-3.sqlite'}" in err


# -- a population's parameters --------------------------------------------------------------
def population_file(tmp_path, **extra) -> str:
    path = tmp_path / "pop.json"
    path.write_text(json.dumps({"types": [{"id": "tft", "agent": "titfortat", "count": 2},
                                          {"id": "alld", "agent": "defect", "count": 1}],
                                **extra}))
    return str(path)


def test_tournament_population_applies_the_files_parameters_as_train_does(tmp_path):
    """`train` played under the file's `parameters`, `tournament --population` ignored
    them: both apply them, say so, and the command line wins over the file."""
    path = population_file(tmp_path, parameters={"length": [4, 4], "moves-per-turn": 1,
                                                 "flip": [0.0, 0.0]})
    status, out, err = pdharness("tournament", "--population", path, "--isolation", "none",
                                 "--format", "json", "-q")
    assert status == 0, err
    result = json.loads(out)
    assert result["params"]["length"] == [4, 4] and result["params"]["moves_per_turn"] == 1
    assert {r["game_length"] for r in result["rounds"]} == {4}
    assert f"pdharness: population {path}: length = [4, 4], moves-per-turn = 1, " \
           "flip = [0.0, 0.0]" in err
    status, out, err = pdharness("tournament", "--population", path, "--isolation", "none",
                                 "--format", "json", "--length", "6", "6", "-q")
    assert status == 0, err
    assert json.loads(out)["params"]["length"] == [6, 6]
    assert f"population {path}: moves-per-turn = 1, flip = [0.0, 0.0]; the command " \
           "line overrode length" in err
    # train reads the same file the same way: its games are 4 turns of 1 move
    status, out, err = pdharness("train", path, "--isolation", "none", "--games", "20",
                                 "--out", tmp_path / "q.json", "-q")
    assert status == 0, err


@pytest.mark.parametrize("extra,words", [
    ({"replicates": 3}, "replicates is an experiment's"),
    ({"seed": 4}, "seed is an experiment's"),
    ({"conditions": [{"name": "a"}, {"name": "b"}]}, "2 conditions (a, b); a tournament "
                                                     "plays one: pdharness experiment"),
    ({"parameters": {"length": [0, 5]}}, "length"),
])
def test_what_a_tournament_cannot_take_from_a_population_is_one_line(tmp_path, extra, words):
    status, out, err = pdharness("tournament", "--population", population_file(tmp_path,
                                                                               **extra),
                                 "--isolation", "none")
    assert status == 2 and words in err and len(err.strip().splitlines()) == 1, err


# -- a model server that accepts and never answers -----------------------------------------
def test_a_server_that_accepts_but_never_answers_is_not_called_unreachable(tmp_path):
    """It is there (the connection is made): the line says it did not answer in time."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    course = tmp_path / "course.toml"
    course.write_text(f'[llm.bot]\nbase_url = "http://127.0.0.1:{port}/v1"\nmodel = "m"\n'
                      "timeout = 1\n")
    try:
        status, _out, err = pdharness("tournament", "llm:bot", "titfortat", "--config",
                                      course, "--isolation", "none", timeout=120)
    finally:
        listener.close()
    assert status == 2 and "Traceback" not in err
    [said] = [row for row in err.splitlines() if row.startswith("pdharness: error: ")]
    assert f"http://127.0.0.1:{port}/v1 did not answer the list of models within 1 s" in said
    assert "cannot reach" not in said


# -- the small words -----------------------------------------------------------------------
def test_a_warning_of_every_game_is_shown_once_with_its_count(tmp_path):
    """`show --agent` listed "game N: the same warning" once per game (29 times)."""
    record = tmp_path / "run.sqlite"
    status, _, err = pdharness("tournament", CORE / "Lowercase.py", "titfortat", "defect",
                               "cooperate", "--isolation", "none", "--seed", "2",
                               "--max-rounds", "1", "--db", record, "-q")
    assert status == 0, err
    status, out, err = pdharness("show", record, "--agent", "Lowercase")
    assert status == 0, err
    warnings = out[out.index("Warnings (the first of each game):"):].splitlines()[1:]
    warnings = warnings[:warnings.index("")] if "" in warnings else warnings
    [shown] = warnings
    # games are numbered in the round robin's order, names case-folded: cooperate, defect,
    # Lowercase, titfortat
    assert shown.startswith("  in 3 games (2, 4, 6): answer ") and "non-canonically" in shown


def test_one_fault_is_one_fault(tmp_path):
    """"1 faults (limit 1)": every count a run prints agrees with its number."""
    once = tmp_path / "Once.py"   # faults on its second turn: one game, one fault
    once.write_text("def Once(hist, score):\n    if len(hist) == 3:\n"
                    "        raise ValueError('once')\n    return 'CCC'\n")
    status, out, err = pdharness("tournament", once, "defect", "--isolation", "none",
                                 "--length", "2", "2", "--max-faults", "1", "--format",
                                 "json", "-q")
    assert status == 0, err
    [raiser] = [a for a in json.loads(out)["agents"] if a["name"] == "Once"]
    assert raiser["status"] == "disqualified" and raiser["message"] == "1 fault (limit 1)"
    status, out, err = pdharness("play", "titfortat", "defect", "--turns", "1", "--seed", "1")
    assert status == 0 and "  1 turn  " in out.splitlines()[0]


def test_duplicate_names_get_the_fix_for_their_case(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder, suffix in (("a", "py"), ("b", "py")):
        (tmp_path / folder / f"AbeBo.{suffix}").write_text(
            "def AbeBo(hist, score):\n    return ['C', 'C', 'C']\n")
    (tmp_path / "Pavlov.py").write_text("def Pavlov(hist, score):\n    return 'CCC'\n")
    status, out, _ = pdharness("validate", tmp_path / "a", tmp_path / "b", "--isolation",
                               "none", "--format", "json")
    assert status == 1
    status, table, _ = pdharness("validate", tmp_path / "a", tmp_path / "b", "--isolation",
                                 "none")
    fixes = [row for row in table.splitlines() if "fix:" in row]
    assert fixes and not any("built-in" in row for row in fixes), table
    status, table, _ = pdharness("validate", tmp_path / "Pavlov.py", "--isolation", "none")
    assert status == 1 and any("built-in" in row for row in table.splitlines()
                               if "fix:" in row), table


def test_help_ranges_are_the_values_a_game_may_take():
    """`play --help` offered `-1000000<=x<=1000000` for --length: no game is -5 turns."""
    for command in ("play", "tournament", "monitor"):
        status, out, _ = pdharness(command, "--help")
        assert status == 0
        flat = " ".join(out.split())
        assert "-1000000<=x" not in flat.split("--payoffs")[0].split("--length")[-1]
        assert "--length LMIN LMAX" in out and "1<=x<=1000000" in flat
    status, _, err = pdharness("tournament", "defect", "titfortat", "--length", "0", "5")
    assert status == 2 and "--length" in err and len(err.strip().splitlines()) == 1


def test_the_language_model_table_gives_cooperation_in_percent_as_every_table(tmp_path):
    """It said `cooperation 0.67` where the report and experiments say 67%."""
    from llm_server import StandIn

    with StandIn({"m": ["ACTION: C C D"]}) as server:
        course = tmp_path / "course.toml"
        course.write_text(f'[llm.bot]\nbase_url = "{server.base_url}"\nmodel = "m"\n')
        status, out, err = pdharness("tournament", "llm:bot", "titfortat", "--config",
                                     course, "--seed", "3", "--length", "2", "2",
                                     "--max-rounds", "1", "--isolation", "none", "-q")
    assert status == 0, err
    [row] = [r for r in out.splitlines() if r.startswith("  llm:bot: cooperation ")]
    assert row.startswith("  llm:bot: cooperation 67%  "), row


def test_the_repls_monitor_names_the_erring_function_too(tmp_path, sbcl):
    """A function of the student's own image: the fault names which one signalled."""
    from test_repl_monitor import repl

    output = repl("(defun ReplDeep-helper (x) (car x))\n"
                  "(defun ReplDeep (hist score) (declare (ignore hist score))"
                  " (ReplDeep-helper 5))\n"
                  "(monitor '(.25 .1) '(2 2) '(#'ReplDeep #'titfortat) :seed 1)", tmp_path)
    [row] = [r for r in output.splitlines() if r.strip().startswith("REPLDEEP: ")]
    assert "the first (exception): TYPE-ERROR: " in row, output
    assert row.endswith(", in function REPLDEEP-HELPER"), row
