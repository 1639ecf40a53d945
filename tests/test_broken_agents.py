"""An agent that does not load: by default it is disqualified before round 1 and
ranks below every agent that loads, and the table, the CSV and the gradebook say why; the
other agents' games are the games of the same run without it. `--keep-broken` (also a
course-file key, kept in a record) plays it as the default answer, as before. Through the
installed console script."""
from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import AGENTS, pdharness as run_console

pytestmark = pytest.mark.slow   # each test runs the console script a few times

ROSTERS = AGENTS / "validate" / "rosters"
BROKEN = "def KhosmoodLevinson(hist, score)\n    return 'CCC'\n"     # a syntax error
RULES = ("--seed", "5", "--isolation", "none", "--length", "6", "9")


def pdharness(*args, cwd=None, status=0):
    return run_console(*args, cwd=cwd, status=status).stdout


@pytest.fixture
def submissions(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "KhosmoodLevinson.py").write_text(BROKEN)
    # cooperates throughout, as a broken agent does by default: the two tie without the
    # rule, and an agent that loads must rank above one that does not
    (folder / "MunozSmithJones.py").write_text(
        "def MunozSmithJones(hist, score):\n    return 'CCC'\n")
    return folder


def test_a_broken_agent_is_out_before_round_1_and_ranks_last(submissions):
    result = json.loads(pdharness("tournament", submissions, "titfortat", "defect",
                                  "random", *RULES, "--format", "json"))
    last = result["standings"][-1]
    assert last["agent"] == "KhosmoodLevinson" and last["dropped_in"] == 0
    assert all(s["rank"] < last["rank"] for s in result["standings"][:-1])
    agent = next(a for a in result["agents"] if a["name"] == "KhosmoodLevinson")
    assert agent["status"] == "disqualified"
    assert agent["message"].startswith("does not load: ") and "syntax error" in agent["message"]
    assert not [g for g in result["games"] if "KhosmoodLevinson" in (g["a"], g["b"])]

    table = pdharness("tournament", submissions, "titfortat", "defect", "random", *RULES)
    problems = table.split("Agents with problems:")[1]
    assert "KhosmoodLevinson: disqualified: does not load:" in problems

    rows = list(csv.DictReader(io.StringIO(pdharness(
        "tournament", submissions, "titfortat", "defect", "random", *RULES,
        "--format", "csv"))))
    row = rows[-1]
    assert row["agent"] == "KhosmoodLevinson" and row["status"] == "disqualified"
    assert row["message"] == agent["message"]
    assert all(r["message"] == "" for r in rows[:-1])


def test_the_other_agents_play_the_games_of_the_run_without_it(submissions, tmp_path):
    """Seeds follow (seed, round, pair): a broken agent's presence changes no other game."""
    fine = tmp_path / "fine"
    fine.mkdir()
    (fine / "MunozSmithJones.py").write_bytes(
        (submissions / "MunozSmithJones.py").read_bytes())
    others = ("titfortat", "defect", "random", "grudger")
    with_it = json.loads(pdharness("tournament", submissions, *others, *RULES,
                                   "--format", "json"))
    without = json.loads(pdharness("tournament", fine, *others, *RULES, "--format", "json"))
    assert with_it["games"] == without["games"]
    assert with_it["rounds"] == without["rounds"]
    assert with_it["standings"][:-1] == without["standings"]


def test_keep_broken_plays_it_as_the_default_answer_and_a_record_keeps_the_rule(
        submissions, tmp_path):
    result = json.loads(pdharness("tournament", submissions, "titfortat", "defect", *RULES,
                                  "--keep-broken", "--format", "json"))
    agent = next(a for a in result["agents"] if a["name"] == "KhosmoodLevinson")
    assert agent["status"] == "load-error"
    played = [g for g in result["games"] if "KhosmoodLevinson" in (g["a"], g["b"])]
    assert played and all(g["round"] == 1 for g in played[:3])

    course = tmp_path / "course.toml"
    course.write_text("keep-broken = true\n")
    db = tmp_path / "run.sqlite"
    from_course = json.loads(pdharness("tournament", "--config",
                                       course, submissions, "titfortat", "defect", *RULES,
                                       "--db", db, "--format", "json"))
    assert from_course["games"] == result["games"]
    from harness.store.reader import Record

    with Record(db) as record:
        assert record.settings.disqualify_broken is False   # resume plays by it

    pdharness("tournament", submissions, "titfortat", *RULES, "--keep-broken",
              "--disqualify-broken", status=2)


def test_the_gradebook_row_says_why(submissions, tmp_path):
    grades = tmp_path / "grades.csv"
    pdharness("tournament", submissions, "titfortat", "defect", *RULES,
              "--roster", ROSTERS / "canvas.csv", "--grades", grades)
    rows = list(csv.DictReader(io.StringIO(grades.read_text(encoding="utf-8"))))
    khosmood = [r for r in rows if r["Agent"] == "KhosmoodLevinson"]
    assert khosmood and all(r["PD Tournament"] == "60" for r in khosmood)
    assert all(r["Note"].startswith("disqualified: does not load: ") for r in khosmood)
    munoz = [r for r in rows if r["Agent"] == "MunozSmithJones"]
    assert munoz and all(float(r["PD Tournament"]) > 60 and r["Note"] == "" for r in munoz)
