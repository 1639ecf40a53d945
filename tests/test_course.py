"""The course file (pdharness.toml): found in the current folder or given with --config,
read through the commands' own option table, overridden by the command line, and named
wherever it gave a value (stderr, the record's command line, which reruns the same run)."""
from __future__ import annotations

import json
import shlex
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import AGENTS, ROOT, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

CORE = AGENTS / "core"


def write(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pdharness.toml").write_text(text, encoding="utf-8")
    return folder / "pdharness.toml"


def tournament_params(folder, *extra):
    """A short tournament run in `folder`: the parameters it printed, and its stderr."""
    status, out, err = run_cli("tournament", "titfortat", "defect", "--seed", "1", *extra,
                               "--format", "json", cwd=folder)
    assert status == 0, err
    return json.loads(out)["params"], err


def test_the_course_file_in_the_current_folder_sets_the_options(tmp_path):
    write(tmp_path, 'timeout = 0.5\nflip = [0.1, 0.05]\nlength = [3, 4]\n'
                    'moves-per-turn = 2\npayoffs = [4, 3, 1, 0]\n')
    params, err = tournament_params(tmp_path, "--isolation", "none")
    assert params["timeout"] == 0.5 and params["flip"] == [0.1, 0.05]
    assert params["length"] == [3, 4] and params["moves_per_turn"] == 2
    assert "course file pdharness.toml: timeout = 0.5" in err


def test_the_command_line_wins_and_the_note_says_so(tmp_path):
    write(tmp_path, 'timeout = 0.8\nlength = [3, 4]\n')
    params, err = tournament_params(tmp_path, "--timeout", "0.5", "--isolation", "none")
    assert params["timeout"] == 0.5 and params["length"] == [3, 4]
    assert "the command line overrode timeout" in err


def test_a_command_table_applies_to_that_command_only(tmp_path):
    write(tmp_path, 'length = [3, 3]\n[play]\nlength = [5, 5]\n'
                    '[tournament]\nformat = "json"\n')
    status, out, err = run_cli("play", "titfortat", "defect", "--seed", "2",
                               "--format", "json", "--isolation", "none", cwd=tmp_path)
    assert status == 0, err
    assert len(json.loads(out)["turns"]) == 5
    status, out, err = run_cli("tournament", "titfortat", "defect", "--seed", "2",
                               "--isolation", "none", cwd=tmp_path)
    assert status == 0, err
    assert json.loads(out)["rounds"][0]["game_length"] == 3


def test_paths_are_relative_to_the_course_file_and_agents_come_from_it(tmp_path):
    course = tmp_path / "course"
    (course / "submissions").mkdir(parents=True)
    for name in ("Counter.py", "Raiser.py"):
        (course / "submissions" / name).write_text((CORE / name).read_text())
    (course / "out").mkdir()
    config = write(course, 'agents = ["submissions", "titfortat"]\n'
                           'length = [3, 3]\ngrades = "out/grades.csv"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    status, out, err = run_cli("tournament", "--config", config, "--seed", "3",
                               "--format", "json", "--isolation", "process", cwd=elsewhere)
    assert status == 0, err
    names = {agent["name"] for agent in json.loads(out)["agents"]}
    assert names == {"Counter", "Raiser", "titfortat"}
    assert (course / "out" / "grades.csv").is_file()


def test_the_readmes_course_file_works_on_its_first_run(tmp_path):
    """The example of docs/instructor.md as it stands, in a course folder holding only
    its submissions and roster: the out/ folder its outputs go in is made."""
    import re

    text = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(# pdharness.toml\n.*?)```", text, re.S).group(1)
    assert 'report = "out/report.html"' in example and 'db = "out/run.sqlite"' in example
    write(tmp_path, example + 'isolation = "process"\nlength = [3, 3]\n')
    (tmp_path / "submissions").mkdir()
    for name in ("KhosmoodLevinson.py", "AdamsBrown.py"):
        (tmp_path / "submissions" / name).write_text((ROOT / "student_agents" / name)
                                                    .read_text(encoding="utf-8"))
    (tmp_path / "roster.csv").write_text("Team,Member 1,Member 2\n1,Khosmood,Levinson\n"
                                         "2,Adams,Brown\n", encoding="utf-8")
    status, _out, err = run_cli("tournament", "--seed", "4", cwd=tmp_path)
    assert status == 0, err
    for made in ("report.html", "grades.csv", "run.sqlite"):
        assert (tmp_path / "out" / made).is_file()


def test_the_record_reruns_the_same_run_without_the_course_file(tmp_path):
    write(tmp_path / "a", 'flip = [0.3, 0.2]\nlength = [4, 6]\n'
                          'agents = ["titfortat", "defect", "random"]\n')
    status, first, err = run_cli("tournament", "--config", "pdharness.toml", "--seed", "5",
                                 "--format", "json", "--isolation", "none",
                                 "--db", tmp_path / "run.sqlite", cwd=tmp_path / "a")
    assert status == 0, err
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        command = db.execute("SELECT command FROM run").fetchone()[0]
    assert "# from pdharness.toml" in command and "--flip 0.3 0.2" in command
    status, _out, err = run_cli("show", tmp_path / "run.sqlite")
    assert status == 0 and "recorded as: pdharness tournament" in err
    assert "--flip 0.3 0.2 --length 4 6" in err and "# from pdharness.toml" in err
    words = shlex.split(command, comments=True)
    assert words[0] == "pdharness"
    words = [w for w in words[1:] if not w.endswith(".sqlite") and w != "--db"]
    (tmp_path / "b").mkdir()
    status, again, err = run_cli(*words, cwd=tmp_path / "b")
    assert status == 0, err
    assert json.loads(again)["standings"] == json.loads(first)["standings"]


@pytest.mark.parametrize("text, says", [
    ("timout = 2\n", "unknown key timout; did you mean timeout?"),
    ("[tournement]\nseed = 1\n", "unknown table [tournement]; did you mean tournament?"),
    ("flip = 0.3\n", "flip takes a list (e.g. flip = [0.25, 0.1]), not 0.3"),
    ("timeout = \"fast\"\n", "timeout = \"fast\""),
    ("decay = \"sometimes\"\n", "decay = \"sometimes\""),
    ("disqualify-broken = \"yes\"\n", "disqualify-broken is true or false"),
    ("flip = [\n", "not a valid TOML file"),
])
def test_a_bad_course_file_gets_one_line_naming_the_file_and_key(tmp_path, text, says):
    write(tmp_path, text)
    status, out, err = run_cli("tournament", "titfortat", "defect", cwd=tmp_path)
    assert status == 2
    assert err.count("\n") == 1 and "pdharness.toml" in err and says in err, err
    assert "Traceback" not in err


def test_a_missing_config_file_is_named(tmp_path):
    status, _out, err = run_cli("tournament", "--config", tmp_path / "nope.toml")
    assert status == 2 and "nope.toml: no such file" in err


def test_validate_and_the_autograder_take_the_course_values(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text((AGENTS / "validate" / "rosters" / "canvas.csv").read_text())
    write(tmp_path, 'roster = "roster.csv"\ntimeout = 3.0\nmoves-per-turn = 1\n'
                    '[autograder]\npoints = 50\n')
    status, _out, err = run_cli("autograder", tmp_path / "bundle", "--config",
                                "pdharness.toml", cwd=tmp_path)
    assert status == 0, err
    settings_file = json.loads((tmp_path / "bundle" / "pdharness-autograder.json").read_text())
    assert settings_file["points"] == 50 and settings_file["timeout"] == 3.0
    assert settings_file["moves_per_turn"] == 1 and settings_file["roster"] == "roster.csv"
    stranger = tmp_path / "OrrPage.py"
    stranger.write_text("def OrrPage(hist, score):\n    return ['C']\n")
    status, out, err = run_cli("validate", stranger, "--config", "pdharness.toml",
                               "--isolation", "process", cwd=tmp_path)
    assert status == 1 and "not-on-roster" in out


KEYS = ["timeout", "flip", "length", "moves-per-turn", "payoffs", "decay", "on-fault",
        "max-faults", "max-rounds", "seed", "jobs", "memory-limit", "disqualify-broken",
        "format", "report", "agents", "isolation"]
VALUES = st.one_of(st.integers(-5, 10**20), st.floats(allow_nan=True), st.text(max_size=8),
                   st.booleans(), st.lists(st.one_of(st.integers(-3, 9), st.floats(),
                                                     st.text(max_size=3)), max_size=5))


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4))
def test_any_values_are_taken_or_refused_with_a_harness_error(tmp_path, data):
    """Whatever a course file holds, reading it either checks out or says what is wrong."""
    from harness.cli import cli
    from harness.cli.course import read
    from harness.core.errors import HarnessError

    path = tmp_path / "pdharness.toml"
    path.write_text("\n".join(f"{key} = {_toml(value)}" for key, value in data.items()))
    try:
        read(path, cli, "tournament")
    except HarnessError as error:
        assert str(path) in str(error)


def _toml(value):
    import math

    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


# -- what a run may touch is the command line's choice ---------------------------------------
@pytest.mark.parametrize("mode", ["none", "process"])
@pytest.mark.parametrize("named", [False, True], ids=["found", "named"])
def test_no_course_file_chooses_a_weaker_isolation(tmp_path, mode, named):
    """A folder of uploads holding a pdharness.toml: `validate .` there must not run the
    uploaded agent inside the monitor; nor may a course file the instructor names."""
    folder = tmp_path / "uploads"
    write(folder, f'isolation = "{mode}"\n')
    (folder / "KhosmoodLevinson.py").write_text(
        (AGENTS.parent.parent / "student_agents" / "KhosmoodLevinson.py").read_text())
    extra = ["--config", "pdharness.toml"] if named else []
    status, out, err = run_cli("validate", ".", *extra, cwd=folder)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "pdharness.toml: isolation" in err and f"--isolation {mode}" in err


@pytest.mark.parametrize("text, key", [
    ('timeout = 30\n', "timeout"), ('memory-limit = 4096\n', "memory-limit"),
    ('max-bundle-mib = 4096\n', "max-bundle-mib"),
    ('db = "/tmp/planted.sqlite"\n', "db"), ('report = "../index.html"\n', "report"),
    ('agents = ["../other-uploads"]\n', "agents"), ('cluster = "tcp://10.0.0.1:8786"\n',
                                                     "cluster"),
    ('[tournament]\ngrades = "/root/grades.csv"\n', "grades"), ('jobs = 1024\n', "jobs"),
    ('agents = ["titfortat", "qtable:../model.json"]\n', "agents")])
def test_a_course_file_found_in_the_folder_reaches_no_further_than_the_command_line(
        tmp_path, text, key):
    write(tmp_path, text)
    status, _out, err = run_cli("tournament", "titfortat", "defect", "--isolation", "none",
                                "--length", "2", "2", cwd=tmp_path)
    assert status == 2 and err.count("\n") == 1, err
    assert f"pdharness.toml: {key} = " in err and "--config pdharness.toml" in err


def test_a_course_file_found_in_the_folder_may_name_its_own_files(tmp_path):
    """The course's own folder, as the instructor guide (docs/instructor.md) lays it out: agents, outputs inside it."""
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / "Counter.py").write_text((CORE / "Counter.py").read_text())
    (tmp_path / "out").mkdir()
    write(tmp_path, 'agents = ["submissions", "titfortat", "defect"]\n'
                    'report = "out/report.html"\ntimeout = 1.0\nmemory-limit = 512\n'
                    '[tournament]\ndb = "out/run.sqlite"\n')
    status, _out, err = run_cli("tournament", "--isolation", "none", "--length", "2", "2",
                                "--seed", "1", cwd=tmp_path)
    assert status == 0, err
    assert (tmp_path / "out" / "run.sqlite").is_file()


def test_a_named_course_file_may_widen_the_limits(tmp_path):
    write(tmp_path, 'timeout = 30\nmemory-limit = 2048\n')
    params, err = tournament_params(tmp_path, "--config", "pdharness.toml", "--isolation",
                                    "none")
    assert params["timeout"] == 30


@pytest.mark.parametrize("command", ["experiment", "train"])
def test_no_experiment_or_population_file_chooses_the_isolation(tmp_path, command):
    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps({"types": [{"id": "t", "agent": "titfortat", "count": 2}],
                                   "parameters": {"isolation": "none"}}))
    extra = ["--out", tmp_path / "q.json"] if command == "train" else []
    status, out, err = run_cli(command, planted, *extra)
    assert status == 2 and err.count("\n") == 1, err
    assert "planted.json: parameters: isolation 'none'" in err and "--isolation none" in err
