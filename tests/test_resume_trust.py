"""`resume` trusts nothing in the record about how agents are confined (a record is a file
anyone may edit): the isolation, timeout and memory limit are what the user asks; a weaker
isolation than recorded needs saying so; and the parameters that make the results come from
the record only after the record's own games are checked against them."""
import json
import shutil
import sqlite3

import pytest

from conftest import AGENTS, run_cli
from test_records_resume import cut_back

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

SENSOR = AGENTS / "hostile" / "MonitorSensor.py"
RUN = ("--seed", "13", "--length", "4", "6", "--format", "json")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A whole run in `process` mode, its record, and the record cut back to round 1."""
    folder = tmp_path_factory.mktemp("recorded")
    whole = folder / "whole.sqlite"
    status, out, err = run_cli("tournament", SENSOR, "titfortat", "defect", "random",
                               "--isolation", "process", *RUN, "--db", whole)
    assert status == 0, err
    result = json.loads(out)
    assert len(result["rounds"]) > 1
    cut = folder / "cut.sqlite"
    shutil.copy(whole, cut)
    cut_back(cut, 1)
    return result, cut


def edited(recorded, tmp_path, sql, *parameters):
    copy = tmp_path / "edited.sqlite"
    shutil.copy(recorded[1], copy)
    with sqlite3.connect(copy) as connection:
        connection.execute(sql, parameters)
    return copy


def test_a_record_edited_to_isolation_none_still_runs_agents_outside_the_monitor(
        recorded, tmp_path, bwrap):
    path = edited(recorded, tmp_path, "UPDATE run SET isolation = 'none'")
    status, out, err = run_cli("resume", path, "--format", "json")
    assert status == 0, err
    resumed = json.loads(out)
    assert resumed["params"].pop("isolation") == "sandbox"   # the default, not the record's
    expected = json.loads(json.dumps(recorded[0]))
    expected["params"].pop("isolation")
    assert resumed == expected   # MonitorSensor never found itself in the monitor


def test_a_weaker_isolation_than_recorded_must_be_asked_for(recorded, tmp_path):
    path = edited(recorded, tmp_path, "UPDATE run SET isolation = 'sandbox'")
    status, out, err = run_cli("resume", path, "--isolation", "process", "--format", "json")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--allow-weaker-isolation" in err
    status, out, err = run_cli("resume", path, "--isolation", "process",
                               "--allow-weaker-isolation", "--format", "json")
    assert status == 0, err
    assert json.loads(out) == recorded[0]


@pytest.mark.parametrize("column,value,option", [
    ("timeout", 3600.0, "--timeout 3600"),
    ("memory_limit", 64 * 1024 ** 3, "--memory-limit 65536"),
])
def test_limits_are_never_taken_from_the_record(recorded, tmp_path, column, value, option):
    path = edited(recorded, tmp_path, f"UPDATE run SET {column} = ?", value)
    status, out, err = run_cli("resume", path, "--isolation", "process")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and option in err and "Traceback" not in err


@pytest.mark.parametrize("sql,parameters", [
    ("UPDATE run SET flip_start = ?", (0.0,)),
    ("UPDATE run SET payoff_r = ?", (4,)),
    ("UPDATE run SET length_min = ?, length_max = ?", (40, 50)),
    ("UPDATE run SET moves_per_turn = ?", (2,)),
    ("UPDATE run SET seed = ?", (14,)),
    ("UPDATE move SET played_a = CASE played_a WHEN 'C' THEN 'D' ELSE 'C' END "
     "WHERE game = (SELECT min(id) FROM game) AND turn = ?", (1,)),
])
def test_a_record_that_no_longer_matches_its_parameters_is_one_line(recorded, tmp_path, sql,
                                                                    parameters):
    path = edited(recorded, tmp_path, sql, *parameters)
    status, out, err = run_cli("resume", path, "--isolation", "process")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "does not match" in err
    assert "Traceback" not in err


def test_an_experiment_record_is_resumed_with_the_isolation_asked_too(tmp_path):
    experiments = AGENTS / "experiments"
    path = tmp_path / "experiment.sqlite"
    status, out, err = run_cli("experiment", experiments / "minimal.json", "--isolation",
                               "none", "--seed", "3", "--db", path,
                               "--timeout", "30")   # the file's own
    assert status == 0, err
    with sqlite3.connect(path) as connection:   # as a stopped run leaves it, then edited
        connection.execute("DELETE FROM placing")
        connection.execute("DELETE FROM tournament")
        connection.execute("UPDATE experiment SET finished_at = NULL, isolation = 'sandbox'")
    status, out, err = run_cli("resume", path, "--isolation", "none", "--timeout", "30")
    assert status == 2 and out == "" and "--allow-weaker-isolation" in err
    assert len(err.strip().splitlines()) == 1
    status, out, err = run_cli("resume", path, "--isolation", "none", "--timeout", "30",
                               "--allow-weaker-isolation")
    assert status == 0, err


def test_a_geometric_horizon_is_checked_game_by_game(tmp_path):
    whole = tmp_path / "whole.sqlite"
    status, out, err = run_cli("tournament", "titfortat", "random", "pavlov", "defect",
                               "--isolation", "none", "--horizon", "geometric",
                               "--stop-prob", "0.2", "--length", "5", "30", "--seed", "8",
                               "--format", "json", "--db", whole)
    assert status == 0, err
    cut_back(whole, 1)
    changed = tmp_path / "changed.sqlite"
    shutil.copy(whole, changed)
    status, out_resumed, err = run_cli("resume", whole, "--isolation", "none", "--format",
                                       "json")
    assert status == 0, err
    assert json.loads(out_resumed) == json.loads(out)
    with sqlite3.connect(changed) as connection:
        connection.execute("UPDATE run SET stop_prob = 0.5")
    status, _, err = run_cli("resume", changed, "--isolation", "none")
    assert status == 2 and "does not match" in err and len(err.strip().splitlines()) == 1
