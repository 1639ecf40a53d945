"""Limits are the command line's: an experiment or population file may keep or
lower the time and memory limits `pdharness experiment` and `train` give its agents, never
raise them; the commands take `--timeout` and `--memory-limit` with tournament's bounds, and
a course file the instructor names gives them as it gives tournament's. Run through the
installed console script, as users do."""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import IN_CI

pytestmark = pytest.mark.slow  # every test here starts the console script

TYPES = [{"id": "tft", "agent": "titfortat", "count": 2},
         {"id": "alld", "agent": "defect", "count": 1}]


def script() -> str:
    beside = Path(sys.executable).parent / "pdharness"
    found = str(beside) if beside.exists() else shutil.which("pdharness")
    if found is None:
        if IN_CI:
            pytest.fail("pdharness is not installed: CI installs the package")
        pytest.skip("pdharness not installed (pip install .)")
    return found


def pdharness(*args, cwd=None):
    done = subprocess.run([script(), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)
    return done.returncode, done.stdout, done.stderr


def planted(folder: Path, **content) -> Path:
    path = folder / "planted.json"
    path.write_text(json.dumps({"types": TYPES, "replicates": 1, **content}))
    return path


def run(command, path, tmp_path, *extra):
    """`experiment` or `train` on `path`, built-in types in the monitor (--isolation none:
    the limits are checked whatever the mode)."""
    out = ["--out", tmp_path / "q.json", "--games", "5"] if command == "train" else []
    return pdharness(command, path, "--isolation", "none", *out, *extra)


RAISED = [
    ({"parameters": {"timeout": 5}}, "parameters: timeout 5", "--timeout 5"),
    ({"parameters": {"memory-limit": 4096}}, "parameters: memory-limit 4096",
     "--memory-limit 4096"),
    ({"conditions": [{"name": "long", "timeout": 1.5}]}, "condition 1 (long): timeout 1.5",
     "--timeout 1.5"),
    ({"conditions": [{"name": "a"}, {"name": "big", "memory_limit": 2048}]},
     "condition 2 (big): memory_limit 2048", "--memory-limit 2048"),
]


@pytest.mark.parametrize("command", ["experiment", "train"])
@pytest.mark.parametrize("content, where, fix", RAISED)
def test_a_file_asking_for_a_higher_limit_is_refused(tmp_path, command, content, where, fix):
    status, out, err = run(command, planted(tmp_path, **content), tmp_path)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert f"planted.json: {where}" in err and fix in err and "Traceback" not in err
    assert not (tmp_path / "q.json").exists()


def test_above_the_command_line_s_own_limit_is_refused_too(tmp_path):
    path = planted(tmp_path, parameters={"timeout": 0.8})
    status, _, err = run("experiment", path, tmp_path, "--timeout", "0.5")
    assert status == 2 and "timeout 0.8" in err and "(0.5s)" in err and err.count("\n") == 1


def recorded_limits(db) -> dict:
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT name, params FROM condition").fetchall()
    return {name: (json.loads(params)["timeout"], json.loads(params)["memory_limit"])
            for name, params in rows}


def test_lower_limits_are_honoured_and_the_command_line_s_hold_elsewhere(tmp_path):
    path = planted(tmp_path, parameters={"memory-limit": 512},
                   conditions=[{"name": "quick", "timeout": 0.25},
                               {"name": "small", "memory-limit": 256, "timeout": 2},
                               {"name": "as-given"}])
    db = tmp_path / "run.sqlite"
    status, out, err = run("experiment", path, tmp_path, "--timeout", "2", "--memory-limit",
                           "768", "--db", db, "--seed", "1", "--format", "json")
    assert status == 0, err
    shown = {c["name"]: c["params"]["timeout"] for c in json.loads(out)["conditions"]}
    assert shown == {"quick": 0.25, "small": 2, "as-given": 2}
    assert recorded_limits(db) == {"quick": (0.25, 512), "small": (2, 256),
                                   "as-given": (2, 512)}


def test_without_options_the_defaults_are_the_ceiling(tmp_path):
    path = planted(tmp_path, conditions=[{"name": "low", "timeout": 0.5},
                                         {"name": "default", "timeout": 1}])
    db = tmp_path / "run.sqlite"
    status, _, err = run("experiment", path, tmp_path, "--db", db, "--seed", "1")
    assert status == 0, err
    assert recorded_limits(db) == {"low": (0.5, 1024), "default": (1, 1024)}


def test_train_plays_its_opponents_under_the_limits_given(tmp_path):
    path = planted(tmp_path, parameters={"timeout": 3})
    status, _, err = run("train", path, tmp_path, "--timeout", "3", "--memory-limit", "512")
    assert status == 0, err
    assert (tmp_path / "q.json").exists()


@pytest.mark.parametrize("option, value", [("--timeout", "0"), ("--timeout", "3601"),
                                           ("--timeout", "nan"), ("--memory-limit", "15"),
                                           ("--memory-limit", str((1 << 20) + 1))])
@pytest.mark.parametrize("command", ["experiment", "train"])
def test_the_options_have_tournament_s_bounds(tmp_path, command, option, value):
    status, out, err = run(command, planted(tmp_path), tmp_path, option, value)
    assert status == 2 and out == "" and err.count("\n") == 1 and option in err, err
    status, _, tournament_err = pdharness("tournament", "titfortat", "defect", option, value)
    assert status == 2 and option in tournament_err


def test_a_named_course_file_gives_the_ceiling_a_found_one_cannot(tmp_path):
    path = planted(tmp_path, parameters={"timeout": 4})
    (tmp_path / "pdharness.toml").write_text("timeout = 4\n")
    status, _, err = run("experiment", path, tmp_path, "--config",
                         tmp_path / "pdharness.toml", "--seed", "1")
    assert status == 0, err
    assert "course file" in err and "timeout = 4" in err
    status, _, err = pdharness("experiment", path, "--isolation", "none", cwd=tmp_path)
    assert status == 2 and err.count("\n") == 1
    assert "pdharness.toml: timeout = 4" in err and "--config pdharness.toml" in err


def test_resume_gives_the_same_limits_or_refuses(tmp_path):
    path = planted(tmp_path, replicates=3, conditions=[{"name": "as-given"}])
    db = tmp_path / "run.sqlite"
    status, _, err = run("experiment", path, tmp_path, "--timeout", "2", "--db", db,
                         "--seed", "1")
    assert status == 0, err
    with sqlite3.connect(db) as connection:   # as a stopped run leaves it
        connection.execute("DELETE FROM placing WHERE replicate = 3")
        connection.execute("DELETE FROM tournament WHERE replicate = 3")
        connection.execute("UPDATE experiment SET finished_at = NULL")
    status, _, err = pdharness("resume", db, "--isolation", "none")
    assert status == 2 and err.count("\n") == 1, err
    assert "condition as-given was recorded with --timeout 2" in err and "--timeout 2" in err
    status, _, err = pdharness("resume", db, "--isolation", "none", "--timeout", "2")
    assert status == 0 and "resumed after 2 tournaments" in err, err


@settings(max_examples=200, deadline=None)
@given(asked=st.fixed_dictionaries({}, optional={
           "timeout": st.none() | st.floats(0.001, 3600), "memory-limit": st.none()
           | st.integers(16, 1 << 20)}),
       where=st.sampled_from(["parameters", "condition"]),
       given_limits=st.fixed_dictionaries({}, optional={
           "timeout": st.none() | st.floats(0.001, 3600),
           "memory_limit": st.none() | st.integers(16, 1 << 20)}))
def test_a_planned_condition_never_gets_more_than_the_command_line_gives(asked, where,
                                                                         given_limits):
    """Whatever a file asks and the command line gives: a limit above the command line's
    (or the default) is refused in one line; else the condition plays the file's own
    limit, or the command line's when it asks none."""
    from harness.core.errors import HarnessError
    from harness.engine.parameters import MIB
    from harness.run.experiment.plan import ceiling, plan

    data = {"types": TYPES}
    if where == "parameters":
        data["parameters"] = asked
    else:
        data["conditions"] = [dict(asked, name="c")]
    most = ceiling(given_limits)
    wanted = {"timeout": asked.get("timeout"), "memory_limit": asked.get("memory-limit")}
    try:
        [condition] = plan(data, b"", Path("planted.json"), None, given_limits).conditions
    except HarnessError as error:
        assert "\n" not in str(error) and str(error).startswith("planted.json: ")
        assert any(value is not None and value > most[name] for name, value in wanted.items())
        return
    played = condition.settings.isolation
    for name, value in (("timeout", played.timeout),
                        ("memory_limit", played.memory_limit // MIB)):
        assert value == (wanted[name] if wanted[name] is not None else most[name])
