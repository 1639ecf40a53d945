"""One agent, one set of games, whichever path names it: seeds and sides follow
one canonical spelling of a name, so the Lisp REPL's `(defun KhosmoodLevinson ...)` (whose
reader upcases it to KHOSMOODLEVINSON), the file KhosmoodLevinson.lisp on the command
line, a Python function given to harness.monitor and Hy's (monitor ...) give the same
result for the same strategy and seed."""
import os
import re
import subprocess
import sys

import pytest

from harness.core import seeds

from conftest import AGENTS, ROOT, pdharness as run_console

HERE = AGENTS / "canonical"
FORM = "(monitor '(.25 .1) '(10 50) '(#'random #'titfortat #'KhosmoodLevinson))"


def pairs(lisp: str) -> list[tuple[str, int]]:
    """((random 675) (titfortat 673) ...) as [("RANDOM", 675), ...]: the names as the Lisp
    reader would read them, so every path's result compares."""
    found = re.findall(r"\(([^()\s]+) (-?\d+)\)", lisp)
    assert found, lisp
    return [(name.upper(), int(score)) for name, score in found]


def pdharness(*args, cwd=None):
    return run_console(*args, cwd=cwd).stdout


def test_a_names_spellings_give_one_seed_and_one_side():
    assert seeds.game_seed(7, 1, "KHOSMOODLEVINSON", "random") == \
        seeds.game_seed(7, 1, "KhosmoodLevinson", "random")
    assert seeds.game_seed(7, 1, "random", "KHOSMOODLEVINSON") == \
        seeds.game_seed(7, 1, "KhosmoodLevinson", "random")
    # plain sorting puts ZHANG before abe but Abe before zhang: sides would swap
    assert seeds.sides("ZHANG", "abe") == ("abe", "ZHANG")
    assert seeds.sides("grudger", "Abe") == ("Abe", "grudger")
    from harness.engine.rounds import round_robin

    upper = round_robin(["ZHANG", "abe", "random"], 1, 10, 7)
    mixed = round_robin(["Zhang", "abe", "random"], 1, 10, 7)
    assert [(j.a.lower(), j.b.lower(), j.seed) for j in upper] == \
        [(j.a.lower(), j.b.lower(), j.seed) for j in mixed]


def test_the_command_line_python_hy_and_the_lisp_repl_agree(sbcl, sandboxed, tmp_path):
    from test_repl_monitor import printed, repl

    lisp_file = pairs(pdharness("monitor", FORM, "--agents", HERE / "lisp", "--seed", 7))
    python_file = pairs(pdharness("monitor", FORM, "--agents", HERE / "python", "--seed", 7))
    assert python_file == lisp_file     # the same strategy in two languages
    assert dict(lisp_file)["KHOSMOODLEVINSON"] > 0

    definition = (HERE / "lisp" / "KhosmoodLevinson.lisp").read_text()
    output = repl(f"""{definition}
(format t "~&RESULT ~S~%" (monitor '(.25 .1) '(10 50)
                                   '(#'random #'titfortat #'KhosmoodLevinson)
                                   :seed 7 :print nil))""", tmp_path)
    assert pairs(printed(output, "RESULT")) == lisp_file

    import harness

    namespace: dict = {}
    exec((HERE / "python" / "KhosmoodLevinson.py").read_text(), namespace)
    from_python = harness.monitor((0.25, 0.1), (10, 50),
                                  ["random", "titfortat", namespace["KhosmoodLevinson"]],
                                  seed=7, isolation="none", jobs=1)
    assert [(name.upper(), score) for name, score in from_python] == lisp_file

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    hy_run = subprocess.run([sys.executable, "-m", "hy", str(HERE / "monitor_call.hy")],
                            capture_output=True, text=True, env=env, timeout=300,
                            cwd=tmp_path)
    assert hy_run.returncode == 0, hy_run.stderr
    assert pairs(hy_run.stdout) == lisp_file


@pytest.mark.parametrize("name", ["KHOSMOODLEVINSON", "khosmoodlevinson"])
def test_a_respelled_name_plays_the_same_games(name):
    """The tournament of one strategy under two spellings of its name: the same games."""
    from harness.agents.specs import callable_spec
    from harness.api import monitor

    namespace: dict = {}
    exec((HERE / "python" / "KhosmoodLevinson.py").read_text(), namespace)
    strategy = namespace["KhosmoodLevinson"]
    kept = monitor((0.25, 0.1), (5, 9), ["random", "titfortat", "grudger",
                                         callable_spec(strategy, "KhosmoodLevinson")],
                   seed=3, isolation="none", jobs=1, max_rounds=2)
    again = monitor((0.25, 0.1), (5, 9), ["random", "titfortat", "grudger",
                                          callable_spec(strategy, name)],
                    seed=3, isolation="none", jobs=1, max_rounds=2)
    assert [(n.lower(), s) for n, s in again] == [(n.lower(), s) for n, s in kept]


def test_a_record_seeded_from_names_as_written_says_it_is_an_older_versions(tmp_path,
                                                                             monkeypatch):
    """A run recorded before seeds followed names case-folded cannot be finished the same:
    resume says so, instead of calling the record edited."""
    import sqlite3

    from harness.agents.specs import resolve
    from harness.core.errors import HarnessError
    from harness.core.rules import GameLength
    from harness.engine.tournament import Settings
    from harness.isolation.handles.opening import Isolation
    from harness.run import tournament_session as session

    from conftest import stop_after_round

    specs = resolve([str(HERE / "python" / "KhosmoodLevinson.py"), "titfortat", "defect"])
    chosen = Settings(isolation=Isolation("none"), jobs=1, length=GameLength(3, 4))
    db = tmp_path / "run.sqlite"
    with monkeypatch.context() as patched:
        stop_after_round(patched, 1)
        with pytest.raises(session.RecordInterrupted):
            session.run(specs, 9, chosen, db=db, quiet=True)
    with sqlite3.connect(db) as connection:   # as versions before case-folding seeded them
        for game_id, a, b, number in connection.execute("SELECT id, a, b, round FROM game"):
            connection.execute("UPDATE game SET seed = ? WHERE id = ?",
                               (seeds.game_seed_as_written(9, number, a, b), game_id))
    with pytest.raises(HarnessError, match="recorded by an older pdharness"):
        session.resume(db, Isolation("none"), quiet=True)
