"""Grades: one CSV row per agent (--format csv, --grades FILE), with team members from
--roster, in columns a gradebook import takes."""
import csv
import io
import json

import pytest

from conftest import AGENTS, ROOT, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

BUNDLED = ROOT / "student_agents"
FIELD = (str(BUNDLED / "AdamsBrown.py"), str(BUNDLED / "GarciaNguyen.py"),
         str(BUNDLED / "KhosmoodLevinson.py"), str(AGENTS / "records" / "Stumbler.py"),
         "titfortat", "defect")
RUN = ("--seed", "5", "--isolation", "none", "--jobs", "1")


def table(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_one_row_per_agent_with_rank_score_round_faults_and_status(tmp_path):
    grades = tmp_path / "grades.csv"
    status, out, err = run_cli("tournament", *FIELD, *RUN, "--format", "csv",
                               "--grades", grades)
    assert status == 0, err
    assert "seed 5" in err
    assert grades.read_text(encoding="utf-8") == out
    _, result, _ = run_cli("tournament", *FIELD, *RUN, "--format", "json")
    result = json.loads(result)
    rows = table(out)
    assert [row["agent"] for row in rows] == [s["agent"] for s in result["standings"]]
    for row, standing in zip(rows, result["standings"], strict=True):
        assert int(row["rank"]) == standing["rank"]
        assert int(row["score"]) == standing["score"]
        assert row["dropped_in"] == ("" if standing["dropped_in"] is None
                                     else str(standing["dropped_in"]))
        for kind, count in standing["faults"].items():
            assert int(row[f"faults_{kind}"]) == count
        metrics = result["metrics"]["agents"][row["agent"]]
        assert float(row["points_per_move"]) == round(metrics["points_per_move"], 4)
    stumbler = next(row for row in rows if row["agent"] == "Stumbler")
    assert int(stumbler["faults_exception"]) > 0 and int(stumbler["faults_invalid"]) > 0
    assert all(row["status"] == "ok" for row in rows)


def test_the_header_is_plain_for_a_gradebook_import(tmp_path):
    status, out, _ = run_cli("tournament", *FIELD, *RUN, "--format", "csv")
    header = out.splitlines()[0].split(",")
    assert header[:4] == ["rank", "agent", "score", "dropped_in"]
    assert all(name and name.replace("_", "").isalnum() for name in header)
    assert len(set(header)) == len(header)


def test_a_roster_adds_each_teams_members(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("Team,Members\n1,Brown;Adams\n2,Garcia,Nguyen\n3,Levinson,Khosmood\n"
                      "4,Other,People\n", encoding="utf-8")
    grades = tmp_path / "grades.csv"
    status, out, err = run_cli("tournament", *FIELD, *RUN, "--grades", grades,
                               "--roster", roster)
    assert status == 0, err
    rows = {row["agent"]: row["members"] for row in table(grades.read_text(encoding="utf-8"))}
    assert rows["AdamsBrown"] == "Brown; Adams"
    assert rows["GarciaNguyen"] == "Garcia; Nguyen"
    assert rows["KhosmoodLevinson"] == "Levinson; Khosmood"
    assert rows["titfortat"] == "" and rows["Stumbler"] == ""


def test_an_lms_group_export_is_a_roster_too(tmp_path):
    roster = tmp_path / "groups.csv"
    roster.write_text("Name,Group\n\"Adams, Ann\",g1\n\"Brown, Bo\",g1\n"
                      "\"Nguyen, Ngoc\",g2\n\"Garcia, Gil\",g2\n", encoding="utf-8")
    status, out, err = run_cli("tournament", *FIELD, *RUN, "--format", "csv",
                               "--roster", roster)
    assert status == 0, err
    rows = {row["agent"]: row["members"] for row in table(out)}
    assert rows["AdamsBrown"] == "Adams; Brown"
    assert rows["GarciaNguyen"] == "Nguyen; Garcia"
    assert rows["KhosmoodLevinson"] == ""


def test_a_misordered_name_still_finds_its_team():
    from harness.present.team_members import Roster
    from harness.validation.roster import Roster as CourseRoster, Team

    roster = Roster(CourseRoster([Team(("Levinson", "Khosmood"))]))
    assert roster.members("KhosmoodLevinson") == ["Levinson", "Khosmood"]
    assert roster.members("LevinsonKhosmood") == ["Levinson", "Khosmood"]
    assert roster.members("Khosmood") is None and roster.members("titfortat") is None


def test_show_writes_the_same_grades_from_the_record(tmp_path):
    path, first, second = tmp_path / "run.sqlite", tmp_path / "a.csv", tmp_path / "b.csv"
    status, _, err = run_cli("tournament", *FIELD, *RUN, "--db", path, "--grades", first)
    assert status == 0, err
    status, _, err = run_cli("show", path, "--grades", second)
    assert status == 0, err
    assert first.read_text() == second.read_text()


def test_an_outputs_missing_folders_are_made(tmp_path):
    grades, report = tmp_path / "out" / "grades.csv", tmp_path / "deep" / "er" / "r.html"
    status, _, err = run_cli("tournament", *FIELD, *RUN, "--grades", grades,
                             "--report", report)
    assert status == 0, err
    assert grades.is_file() and report.is_file()


def test_unusable_output_paths_fail_before_the_run(tmp_path):
    (tmp_path / "a-file").write_text("")
    for option in ("--grades", "--report", "--db"):
        status, out, err = run_cli("tournament", *FIELD, *RUN, option,
                                   tmp_path / "a-file" / "out" / "file")
        last = err.splitlines()[-1]
        assert status == 2 and out == "" and "Traceback" not in err
        assert last.startswith("pdharness: error: ") and "a-file" in last
        assert "cannot make folder" in last or "is not a folder" in last
    status, _, err = run_cli("tournament", *FIELD, *RUN, "--roster", tmp_path / "none.csv")
    assert status == 2 and "--roster" in err and "Traceback" not in err


def unfinished(tmp_path):
    """A record as a run stopped after round 1 leaves it."""
    import sqlite3

    db = tmp_path / "unfinished.sqlite"
    status, _, err = run_cli("tournament", *FIELD, *RUN, "--db", db)
    assert status == 0, err
    with sqlite3.connect(db) as connection:
        for table, column in (("move", "game"), ("fault", "game")):
            connection.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT id FROM game "
                               "WHERE round > 1)")
        for table, column in (("game", "round"), ("round_score", "round"),
                              ("round", "number")):
            connection.execute(f"DELETE FROM {table} WHERE {column} > 1")
        connection.execute("UPDATE agent SET rank = NULL, score = NULL, dropped_in = NULL "
                           "WHERE dropped_in > 1 OR dropped_in IS NULL")
        connection.execute("UPDATE run SET finished_at = NULL")
    return db


def test_grades_from_an_unfinished_record_are_refused_unless_marked_provisional(tmp_path):
    db, grades = unfinished(tmp_path), tmp_path / "grades.csv"
    status, out, err = run_cli("show", db, "--grades", grades)
    assert status == 2 and not grades.exists() and "Traceback" not in err
    assert err.splitlines()[-1].startswith(f"pdharness: error: --grades {grades}: ")
    assert "--provisional" in err and "pdharness resume" in err
    status, _, err = run_cli("show", db, "--grades", grades, "--provisional")
    assert status == 0, err
    rows = table(grades.read_text(encoding="utf-8"))
    assert rows and all(row["provisional"] == "yes" for row in rows)
    finished = tmp_path / "finished.sqlite"
    status, _, err = run_cli("tournament", *FIELD, *RUN, "--db", finished)
    assert status == 0, err
    status, _, err = run_cli("show", finished, "--grades", grades, "--provisional")
    assert status == 0, err
    assert "provisional" not in grades.read_text(encoding="utf-8")   # final: not marked
    assert f"--grades {grades}: replaced the file that was there" in err   # said, not silent


def test_show_leaves_the_course_files_outputs_alone_unless_asked(tmp_path):
    """The course file's report and grades belong to its tournament: `show` of another
    record writes them only when its own command line asks, and says so."""
    course = tmp_path / "course"
    course.mkdir()
    (course / "pdharness.toml").write_text('report = "out/report.html"\n'
                                           'grades = "out/grades.csv"\n')
    other = tmp_path / "other.sqlite"
    status, _, err = run_cli("tournament", *FIELD, *RUN, "--db", other)
    assert status == 0, err
    status, _, err = run_cli("show", other, cwd=course)
    assert status == 0, err
    assert not (course / "out").exists()
    assert "not written: the course file's report = " in err
    status, _, err = run_cli("show", other, "--grades", "mine.csv", cwd=course)
    assert status == 0, err
    assert (course / "mine.csv").is_file() and not (course / "out" / "report.html").exists()
