"""`pdharness moran`: a seeded Moran process, through the console script."""
from __future__ import annotations

import json

from conftest import run_cli

BASE = ("moran", "cooperate", "defect", "titfortat", "--size", "6", "--length", "10", "20",
        "--format", "json")


def _moran(*extra):
    status, out, err = run_cli(*BASE, *extra)
    assert status == 0, err
    return json.loads(out)


def test_one_seed_gives_one_process_with_any_jobs():
    first = _moran("--seed", "4", "--isolation", "none", "--jobs", "1")
    again = _moran("--seed", "4", "--isolation", "none", "--jobs", "2")
    assert first == again
    assert first["fixation"] in {"cooperate", "defect", "titfortat"}
    assert first["generations"] == len(first["record"]) >= 1
    for entry in first["record"]:
        assert sum(entry["population"].values()) == 6
    assert first["record"][-1]["population"][first["fixation"]] == 6
    other = _moran("--seed", "5", "--isolation", "none")
    assert other["record"] != first["record"]


def test_with_mutation_it_runs_its_generations():
    run = _moran("--seed", "1", "--isolation", "none", "--mutation", "0.5",
                 "--max-generations", "15")
    assert run["generations"] == 15 and run["mutation"] == 0.5
    assert any(entry["mutated"] for entry in run["record"])


def test_a_type_that_does_not_load_is_refused_in_one_line(tmp_path):
    """It would play the default answer as if it chose to: no result about it. (Notes a
    mode may print, such as a root monitor's under `process`, are other lines.)"""
    broken = tmp_path / "GarciaHill.py"
    broken.write_text("def GarciaHill(hist, score:\n    return 'CCC'\n")
    status, _out, err = run_cli("moran", str(broken), "titfortat", "--size", "3",
                                "--isolation", "process")
    errors = [line for line in err.splitlines() if line.startswith("pdharness: error:")]
    assert status == 2 and len(errors) == 1 and "GarciaHill does not load" in errors[0], err


def test_bad_input_is_one_line():
    for args, says in [(("moran", "cooperate", "--size", "4"), "two agent types"),
                       (("moran", "cooperate", "defect", "titfortat", "--size", "2"),
                        "smaller than"),
                       (("moran", "cooperate", "axelrod:Nope", "--size", "4"), "axelrod:Nope")]:
        status, _out, err = run_cli(*args)
        assert status == 2 and len(err.strip().splitlines()) == 1 and says in err, err
