"""`pdharness experiment FILE`: conditions x replicates, one record resumable after kill -9
with the uninterrupted result, the same results with any --jobs and isolation mode, the
comparison as JSON and HTML, one clear line for a bad file."""
import json
import signal
import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from harness.core.counts import counted
from harness.core.errors import HarnessError

from conftest import AGENTS, run_cli, stop_when

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

FILES = AGENTS / "experiments"
MINIMAL = FILES / "minimal.json"
SLOW = FILES / "slow.json"


# the test files ask for 30 s per call (never late on a busy machine): a file may only lower
# the command line's limit, so the command line gives it
LIMIT = ("--timeout", "30")


def experiment_json(*args):
    status, out, err = run_cli("experiment", *args, *LIMIT, "--format", "json")
    assert status == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def minimal():
    return experiment_json(MINIMAL, "--isolation", "none", "--seed", "3", "--jobs", "1")


def test_per_condition_each_type_has_its_mean_score_and_rank(minimal):
    assert minimal["seed"] == 3 and minimal["replicates"] == 4
    assert [c["name"] for c in minimal["conditions"]] == ["quiet", "noisy"]
    for condition in minimal["conditions"]:
        assert condition["tournaments"] == 4
        assert {t["type"] for t in condition["types"]} == {"tft", "m1", "alld"}
        for t in condition["types"]:
            assert 1 <= t["mean_rank"] <= 7 and t["mean_score"] >= 0
            low, high = t["score_interval"]
            assert low <= t["mean_score"] <= high
    quiet = {t["type"]: t for t in minimal["conditions"][0]["types"]}
    assert quiet["alld"]["cooperation"] == 0 and quiet["tft"]["cooperation"] > 0.5
    assert minimal["conditions"][1]["params"]["flip"] == [0.25, 0.1]


def test_toml_mirrors_json(minimal):
    toml = experiment_json(FILES / "minimal.toml", "--isolation", "none", "--seed", "3")
    assert toml["conditions"] == minimal["conditions"]


def outcome(result):
    """What the agents did, whatever the isolation mode."""
    return [(c["name"], c["tournaments"], c["types"]) for c in result["conditions"]]


def test_same_results_with_any_jobs_and_isolation(minimal):
    assert outcome(experiment_json(MINIMAL, "--isolation", "none", "--seed", "3", "--jobs",
                                   "2")) == outcome(minimal)
    assert outcome(experiment_json(MINIMAL, "--isolation", "process", "--seed", "3",
                                   "--jobs", "2")) == outcome(minimal)


def test_in_the_sandbox_the_same_results(minimal, bwrap):
    assert outcome(experiment_json(MINIMAL, "--isolation", "sandbox", "--seed", "3")) == \
        outcome(minimal)


def test_the_table_and_the_report_compare_the_conditions(tmp_path):
    report = tmp_path / "report.html"
    status, out, err = run_cli("experiment", MINIMAL, "--isolation", "none", "--seed", "3",
                               "--report", report, *LIMIT)
    assert status == 0, err
    assert "seed 3" in out and "quiet" in out and "noisy" in out
    page = report.read_text()
    assert page.count("<svg") == 2 and "condition-2" in page and "memory:0110" in page


def placings(path):
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT p.*, t.seed, t.rounds, t.games FROM placing p JOIN tournament t USING "
            "(condition, replicate) ORDER BY condition, replicate, agent").fetchall()


def kept(path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT count(*) FROM tournament").fetchone()[0]
    except sqlite3.OperationalError:
        return 0   # the schema is being written


def test_kill_9_then_resume_equals_the_uninterrupted_experiment(tmp_path):
    whole = tmp_path / "whole.sqlite"
    status, out, err = run_cli("experiment", SLOW, "--isolation", "process", "--db", whole,
                               "--format", "json", *LIMIT)
    assert status == 0, err
    uninterrupted = json.loads(out)

    path = tmp_path / "killed.sqlite"
    status = stop_when(["experiment", SLOW, "--isolation", "process", "--db", path,
                        "--jobs", "1", *LIMIT], lambda: kept(path) >= 1, signal.SIGKILL)
    assert status == -signal.SIGKILL
    before = kept(path)
    assert 1 <= before < 8
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert connection.execute("SELECT finished_at FROM experiment").fetchone() == (None,)

    status, out, err = run_cli("resume", path, "--format", "json", "--isolation", "process",
                               *LIMIT)
    assert status == 0, err
    assert f"resumed after {counted(before, 'tournament')}" in err
    assert json.loads(out) == uninterrupted
    assert placings(path) == placings(whole)

    status, out, err = run_cli("resume", path, "--format", "json", "--isolation", "process",
                               *LIMIT)
    assert status == 0 and "already complete" in err and json.loads(out) == uninterrupted
    status, out, err = run_cli("show", path)   # a run's tool: it says what to use instead
    assert status == 2 and f"pdharness resume {path}" in err and err.count("\n") == 1


def test_resume_refuses_a_changed_agent_file(tmp_path):
    folder = tmp_path / "exp"
    folder.mkdir()
    sleepy = AGENTS / "records" / "Sleepy.py"
    (folder / "Sleepy.py").write_text(sleepy.read_text())
    (folder / "slow.json").write_text(SLOW.read_text().replace("../records/Sleepy.py",
                                                               "Sleepy.py"))
    path = tmp_path / "run.sqlite"
    status, out, err = run_cli("experiment", folder / "slow.json", "--isolation", "none",
                               "--db", path, *LIMIT)
    assert status == 0, err
    with sqlite3.connect(path) as connection:   # as if it had been stopped early
        connection.execute("DELETE FROM placing WHERE replicate = 4")
        connection.execute("DELETE FROM tournament WHERE replicate = 4")
        connection.execute("UPDATE experiment SET finished_at = NULL")
    (folder / "Sleepy.py").write_text(sleepy.read_text() + "\n# changed\n")
    status, out, err = run_cli("resume", path, *LIMIT)
    assert status == 2 and "sleepy" in err and "changed" in err and err.count("\n") == 1


BAD = [
    ({"conditions": [{"name": "a", "flipp": [0, 0]}]}, "unknown parameter 'flipp'"),
    ({"conditions": [{"name": "a", "flip": [0.1]}]}, "flip"),
    ({"conditions": [{"name": "a", "flip": "high"}]}, "flip"),
    ({"conditions": [{"name": "a", "moves-per-turn": 0}]}, "moves-per-turn"),
    ({"conditions": [{"name": "a", "horizon": "fixed"}]}, "--length L L"),
    ({"conditions": [{"name": "a", "payoffs": [1, 2, 3, 4]}]}, "T > R > P > S"),
    ({"conditions": [{"name": "a"}, {"name": "A"}]}, "two conditions"),
    ({"conditions": [{"name": "<b>"}]}, "name must"),
    ({"conditions": []}, "non-empty"),
    ({"replicates": 0}, "replicates"),
    ({"replicate": 3}, "unknown field 'replicate'"),
    ({"seed": -1}, "seed"),
    ({"conditions": [{"name": "a", "types": [{"id": "x", "agent": "nobody", "count": 2}]}]},
     "unknown agent"),
]


@pytest.mark.parametrize("change, words", BAD)
def test_a_bad_experiment_file_is_one_clear_line(tmp_path, change, words):
    from harness.run.experiment.plan import load

    content = dict(json.loads(MINIMAL.read_text()), **change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(HarnessError, match=words) as caught:
        load(path, limits={"timeout": 30})
    assert "\n" not in str(caught.value)


def test_the_command_line_says_it_in_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"types": [], "replicates": 2}))
    status, out, err = run_cli("experiment", path)
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err


values = st.none() | st.booleans() | st.integers(-3, 60) | st.floats(-1, 2) \
    | st.text(max_size=10) | st.lists(st.floats(-1, 60) | st.integers(-3, 60), max_size=5)


@settings(max_examples=300, deadline=None)
@given(condition=st.dictionaries(
    st.sampled_from(["name", "flip", "length", "horizon", "stop-prob", "moves_per_turn",
                     "payoffs", "decay", "timeout", "on-fault", "max-rounds", "max_faults",
                     "disqualify-broken", "memory-limit", "isolation", "other"]),
    values, max_size=6))
def test_any_condition_is_planned_or_refused_in_one_line(condition):
    from harness.run.experiment.plan import plan

    data = dict(json.loads(MINIMAL.read_text()), conditions=[condition])
    try:
        plan(data, b"", MINIMAL, None, {"timeout": 30})
    except HarnessError as error:
        assert "\n" not in str(error)


def test_a_stopped_experiment_says_the_resume_command_with_the_limits_resume_wants(tmp_path):
    """resume refuses other limits than the run's: the command it is told to run gives
    them, as a stopped tournament's does."""
    from harness.agents import bundles
    from harness.run.experiment import plan
    from harness.run.experiment.experiment_session import ExperimentInterrupted

    record, file = tmp_path / "x.sqlite", tmp_path / "two.json"
    file.write_text('{"types": [{"id": "tft", "agent": "titfortat", "count": 2}]}')
    assert str(ExperimentInterrupted(record, 2, plan.load(file, "process"))).endswith(
        f"to finish the experiment: pdharness resume {record}")
    experiment = plan.load(file, "process", {"timeout": 30, "memory_limit": 512})
    bundles.use_max_mib(3)
    try:
        said = str(ExperimentInterrupted(record, 2, experiment))
    finally:
        bundles.use_max_mib(None)
    assert said.startswith(f"interrupted; 2 finished tournaments kept in {record}\n")
    assert said.endswith(f"pdharness resume {record} --timeout 30 --memory-limit 512 "
                         "--max-bundle-mib 3")


def test_a_files_agent_package_list_replaces_the_command_lines_where_it_is_given(tmp_path):
    from harness.run.experiment import plan

    file = tmp_path / "packages.json"
    file.write_text(json.dumps({
        "types": [{"id": "tft", "agent": "titfortat", "count": 2}],
        "conditions": [{"name": "declared"},
                       {"name": "own", "agent-package": ["click>=8", "jinja2"]}]}))
    declared, own = plan.load(file, "process", packages=("hyrule",)).conditions
    assert declared.settings.isolation.agent_packages == ("hyrule",)
    assert own.settings.isolation.agent_packages == ("click>=8", "jinja2")
    assert plan.load(file, "process").conditions[0].settings.isolation.agent_packages == ()


@pytest.mark.parametrize("given, says", [
    ('"agent-package": "numpy"', "expected a list"),
    ('"agent-package": [null, 1]', "expected a list of quoted values"),   # not "None", "1"
    ('"agent-package": ["not a requirement!"]', "agent-package"),
    ('"max-bundle-mib": 1', "unknown parameter"),   # the command line's, for the whole run
])
def test_a_files_packages_or_bundle_limit_it_cannot_set_are_one_line(tmp_path, given, says):
    from harness.run.experiment import plan

    file = tmp_path / "bad.json"
    file.write_text('{"types": [{"id": "tft", "agent": "titfortat"}], '
                    f'"conditions": [{{"name": "c", {given}}}]}}')
    with pytest.raises(HarnessError) as refused:
        plan.load(file, "process")
    assert says in str(refused.value) and "\n" not in str(refused.value)
