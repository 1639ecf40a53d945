"""What agents may import is declared once (--agent-package, the course file's
agent-packages): the standard library, hy, hyrule and the declared distributions with
what they require, in validate, the tournament and the autograder alike, in the sandbox
and in a process of their own (harness/agents/agent_environment.py, agent_imports.py)."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from library_venv import add_distribution, make_venv, pdharness, remove, site_packages

from conftest import console_script

pytestmark = pytest.mark.slow   # real hosts, in the sandbox or a process of their own
MODES = ["sandbox", "process"]

UNDECLARED_PY = "import click\n\n\ndef JonesSmith(hist, score):\n    return ['C', 'C', 'C']\n"
UNDECLARED_HY = '(import jinja2)\n\n(defn LeePark [hist score] ["C" "C" "C"])\n'
DECLARED_PY = ("import answers_lib\n\n\ndef AdamsBrown(hist, score):\n"
               "    return answers_lib.ANSWER\n")
DECLARED_HY = '(import answers-lib)\n\n(defn BrownChen [hist score] answers-lib.ANSWER)\n'


@pytest.fixture(scope="module")
def venv():
    made = make_venv()
    # answers-lib requires helper-lib: declaring the first allows both
    add_distribution(made, "helper-lib", "helper_lib", 'MOVES = ["C", "D", "C"]\n')
    add_distribution(made, "answers-lib", "answers_lib",
                     "from helper_lib import MOVES as ANSWER\n", requires=("helper-lib",))
    yield made
    remove(made)


def _mode(isolation, request):
    if isolation == "sandbox":
        request.getfixturevalue("sandboxed")


def _verdicts(done) -> dict:
    assert done.returncode in (0, 1), done.stderr
    return {verdict["agent"]: verdict for verdict in json.loads(done.stdout)}


def _validate(venv, folder, isolation, files: dict, *options) -> dict:
    """The files written in `folder`, then validated there: {agent: verdict}."""
    for name, text in files.items():
        (folder / name).write_text(text)
    return _verdicts(pdharness(venv, "validate", "--format", "json", "--isolation", isolation,
                               *options, *files, cwd=folder))


def _load_error(verdict) -> str:
    [problem] = [p for p in verdict["problems"] if p["code"] == "load-error"]
    return problem["message"]


@pytest.mark.parametrize("isolation", MODES)
def test_an_undeclared_import_fails_to_load_in_one_line_saying_how_to_declare_it(
        venv, isolation, tmp_path, request):
    _mode(isolation, request)
    verdicts = _validate(venv, tmp_path, isolation,
                         {"JonesSmith.py": UNDECLARED_PY, "LeePark.hy": UNDECLARED_HY})
    for agent, module, distribution in (("JonesSmith", "click", "click"),
                                        ("LeePark", "jinja2", "Jinja2")):
        message = _load_error(verdicts[agent])
        assert "\n" not in message
        assert f"{module} is not among the libraries agents may import" in message
        assert f'agent-packages = ["{distribution}"]' in message
        assert f"--agent-package {distribution}" in message


@pytest.mark.parametrize("isolation", MODES)
def test_a_declared_library_and_what_it_requires_load_in_python_and_hy(
        venv, isolation, tmp_path, request):
    _mode(isolation, request)
    written = {"AdamsBrown.py": DECLARED_PY, "BrownChen.hy": DECLARED_HY}
    files = tuple(written)
    undeclared = _validate(venv, tmp_path, isolation, written)
    assert all(not verdict["ok"] for verdict in undeclared.values())
    declared = _validate(venv, tmp_path, isolation, written, "--agent-package", "answers-lib>=1")
    assert {name: verdict["ok"] for name, verdict in declared.items()} == {
        "AdamsBrown": True, "BrownChen": True}, declared
    # the course file says it as well, and the tournament plays what validate passed
    (tmp_path / "pdharness.toml").write_text('agent-packages = ["answers-lib"]\n')
    done = pdharness(venv, "tournament", "--format", "json", "--isolation", isolation,
                     "--seed", "3", "--length", "3", "3", *files, "cooperate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {a["name"]: a["status"] for a in result["agents"]} == {
        "AdamsBrown": "ok", "BrownChen": "ok", "cooperate": "ok"}
    assert result["params"]["agent_packages"] == ["answers-lib"]


EXPERIMENT = """replicates = 2
types = [{id = "ab", agent = "AdamsBrown.py", count = 2}, {id = "co", agent = "cooperate"}]
[parameters]
length = [3, 3]
"""


def _moves_of(record, type_id: str) -> dict:
    """{replicate: moves the type's copies played} in an experiment's record."""
    import sqlite3

    with sqlite3.connect(record) as connection:
        return dict(connection.execute(
            "SELECT replicate, sum(moves) FROM placing WHERE type = ? GROUP BY replicate",
            (type_id,)))


def test_experiment_and_train_play_under_the_course_files_declaration_and_resume_keeps_it(
        venv, tmp_path):
    """The course file's agent-packages apply to experiment and train as to the
    tournament: its agents load there too, and an experiment's record keeps the
    declaration, so a resumed experiment plays under it with no course file."""
    import sqlite3

    (tmp_path / "AdamsBrown.py").write_text(DECLARED_PY)
    (tmp_path / "exp.toml").write_text(EXPERIMENT)
    common = ("--isolation", "process", "--seed", "3", "--quiet")
    done = pdharness(venv, "experiment", "exp.toml", *common, "--db", "none.sqlite",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert set(_moves_of(tmp_path / "none.sqlite", "ab").values()) == {0}   # did not load
    [note] = [said for said in done.stderr.splitlines() if "did not load" in said]
    assert note.startswith("pdharness: note: agent type ab (AdamsBrown.py) did not load: ")
    assert "--agent-package answers-lib" in note   # advice the experiment now takes
    (tmp_path / "pdharness.toml").write_text('agent-packages = ["answers-lib"]\n')
    done = pdharness(venv, "experiment", "exp.toml", *common, "--db", "run.sqlite",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = tmp_path / "run.sqlite"
    played = _moves_of(record, "ab")
    assert sorted(played) == [1, 2] and 0 not in played.values()
    with sqlite3.connect(record) as connection:   # as if stopped after one tournament
        assert connection.execute("SELECT agent_packages FROM experiment").fetchone() == (
            '["answers-lib"]',)
        connection.execute("DELETE FROM placing WHERE replicate = 2")
        connection.execute("DELETE FROM tournament WHERE replicate = 2")
        connection.execute("UPDATE experiment SET finished_at = NULL")
    (tmp_path / "pdharness.toml").unlink()
    done = pdharness(venv, "resume", "run.sqlite", "--isolation", "process", "--quiet",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _moves_of(record, "ab") == played
    done = pdharness(venv, "train", "exp.toml", "--out", "model.json", "--games", "6",
                     "--isolation", "process", "--quiet", "--agent-package", "answers-lib",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "against ab" in done.stdout


REACHING = """import importlib
import os
import sys

SITE = {site!r}
OURS = {{"harness", "lisp_bridge", "hy", "hyrule", "funcparserlib", "__main__"}}


def _reached():
    found = []
    sys.path.append(SITE)
    for name in ("click", "jinja2", "helper_lib"):
        try:
            importlib.import_module(name)
            found.append(name)
        except ImportError:
            pass
    try:
        with open(os.path.join(SITE, "click", "__init__.py")) as opened:
            opened.read(1)
        found.append("click's file, by its path")
    except OSError:
        pass
    try:
        found += sorted({{"click", "jinja2", "helper_lib"}} & set(os.listdir(SITE)))
    except OSError:
        pass
    try:
        __import__("harness")
        found.append("__import__ of the host's harness")
    except ImportError:
        pass
    loaded = {{name.partition(".")[0] for name in sys.modules}}
    found += sorted(name for name in loaded - set(sys.stdlib_module_names) - OURS
                    if not name.startswith("_"))
    return found


REACHED = _reached()


def HillKim(hist, score):
    if REACHED:
        raise RuntimeError("reached " + ", ".join(REACHED))
    return ["C", "C", "C"]
"""


@pytest.mark.parametrize("isolation", MODES)
def test_no_undeclared_library_is_reachable_by_path_finder_file_or_sys_modules(
        venv, isolation, tmp_path, request):
    """Not a polite finder: the site folder put back on sys.path, importlib, a file opened
    by its path, the folder listed, `__import__` of the host's own package, and what the
    host's sys.modules holds: nothing undeclared."""
    _mode(isolation, request)
    site = str(site_packages(venv))
    verdicts = _validate(venv, tmp_path, isolation,
                         {"HillKim.py": REACHING.format(site=site)})
    assert verdicts["HillKim"]["ok"], verdicts["HillKim"]["problems"]


def _slow_library(venv, counter) -> None:
    add_distribution(venv, "slow-lib", "slow_lib", f"""import time

time.sleep(1.5)   # an import as slow as hyrule's from Python, or pandas' on a slow day
try:
    with open({str(counter)!r}, "a") as counted:
        counted.write("imported\\n")
except OSError:
    pass   # the sandbox shows no folder of the test's
VALUE = ["C", "C", "D"]
""")


@pytest.mark.parametrize("isolation", MODES)
def test_a_slow_declared_import_is_paid_once_per_host_not_in_each_games_first_call(
        venv, isolation, tmp_path, request, shared_folder):
    _mode(isolation, request)
    os.chmod(shared_folder, 0o777)   # the agents' users write there (a root monitor's)
    counter = shared_folder / "imports"
    counter.write_text("")
    os.chmod(counter, 0o666)   # each agent's host runs as a user of its own under root
    _slow_library(venv, counter)
    verdicts = _validate(venv, tmp_path, isolation, {
        "CruzDiaz.py": "import slow_lib\n\n\ndef CruzDiaz(hist, score):\n"
                       "    return slow_lib.VALUE\n",
        "DiazEvans.hy": "(import slow-lib)\n\n(defn DiazEvans [hist score] slow-lib.VALUE)\n",
    }, "--timeout", "1", "--agent-package", "slow-lib")
    assert {name: (v["ok"], v["problems"]) for name, v in verdicts.items()} == {
        "CruzDiaz": (True, []), "DiazEvans": (True, [])}
    if isolation == "process":   # one import a host (one per agent), whatever the games
        assert counter.read_text().count("imported") == 2


def test_a_declared_package_that_is_not_installed_is_one_line_before_anything_runs(tmp_path):
    (tmp_path / "AdamsBrown.py").write_text(DECLARED_PY)
    for command in (["validate", "AdamsBrown.py"], ["tournament", "AdamsBrown.py", "defect"],
                    ["play", "AdamsBrown.py", "defect"]):
        done = subprocess.run([console_script(), *command, "--agent-package",
                               "no-such-library-anywhere>=1"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 2, (command, done.stderr)
        assert done.stdout == ""
        errors = [line for line in done.stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and "no-such-library-anywhere>=1 is not installed" in errors[0]


def test_validate_and_the_tournament_say_the_same_of_one_declaration(venv, tmp_path, request):
    """What validate finds under a declaration is what the tournament plays under it: the
    same load errors, word for word, and the same files loading."""
    request.getfixturevalue("sandboxed")
    (tmp_path / "JonesSmith.py").write_text(UNDECLARED_PY)
    (tmp_path / "LeePark.hy").write_text(UNDECLARED_HY)
    (tmp_path / "AdamsBrown.py").write_text(DECLARED_PY)
    files = ("JonesSmith.py", "LeePark.hy", "AdamsBrown.py")
    for declared in ([], ["--agent-package", "answers-lib"], ["--agent-package", "click"]):
        verdicts = _verdicts(pdharness(venv, "validate", "--format", "json", *declared, *files,
                                       cwd=tmp_path))
        done = pdharness(venv, "tournament", "--format", "json", "--seed", "5", "--length",
                         "2", "2", *declared, *files, "cooperate", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        played = {a["name"]: a for a in json.loads(done.stdout)["agents"]}
        for name, verdict in verdicts.items():
            loads = not any(p["code"] == "load-error" for p in verdict["problems"])
            assert loads == (played[name]["status"] == "ok"), (declared, name)
            if not loads:   # the tournament disqualifies it before round 1, saying why
                assert played[name]["message"] == f"does not load: {_load_error(verdict)}", \
                    (declared, name)


def test_the_record_keeps_the_declaration_and_the_load_timeout_and_resume_holds_to_them(
        tmp_path):
    """resume plays the record's declaration (it changes results, like the rules) and, as
    for --timeout, refuses a --load-timeout other than the recorded one; a record whose
    declaration was edited into something else is one line."""
    import sqlite3

    from harness.core.errors import HarnessError
    from harness.isolation.handles.opening import Isolation
    from harness.run.tournament_session import check_confinement, resume_command
    from harness.store.reader import Record

    record = tmp_path / "run.sqlite"
    done = subprocess.run([console_script(), "tournament", "cooperate", "defect", "--seed",
                           "1", "--length", "2", "2", "--agent-package", "click>=8",
                           "--load-timeout", "4", "--db", str(record), "--isolation", "none"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with Record(record) as opened:
        recorded = opened.settings.isolation
        assert (recorded.agent_packages, recorded.load_timeout) == (("click>=8",), 4.0)
        with pytest.raises(HarnessError, match="--load-timeout 4"):
            check_confinement(opened, Isolation(), allow_weaker=False)
        check_confinement(opened, Isolation(load_timeout=4.0), allow_weaker=False)
    assert "--load-timeout 4" in resume_command(record, recorded)
    with sqlite3.connect(record) as connection:
        connection.execute("""UPDATE run SET agent_packages = '"click"'""")
    with pytest.raises(HarnessError, match="agent_packages is not a JSON list"):
        with Record(record) as opened:
            opened.settings  # noqa: B018 - read, and so checked
