"""The gradebook import (--grades with an LMS --roster): one row per student, with the
columns Canvas, Moodle and Blackboard match an import on, read back as each LMS reads its
import file; the grade mapping and its defaults; the per-agent CSV kept where it was."""
from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings, strategies as st

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

ROSTERS = AGENTS / "validate" / "rosters"
TEAMS = {"KhosmoodLevinson": '"DDD"', "MunozSmithJones": '"CCC"'}


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    for name, answer in TEAMS.items():
        (folder / f"{name}.py").write_text(f"def {name}(hist, score):\n    return {answer}\n")
    return folder


def run(tmp_path, submissions, roster, *extra):
    # seed 2: KhosmoodLevinson (DDD) first, MunozSmithJones (CCC) last of three ranks
    grades = tmp_path / "grades.csv"
    status, out, err = run_cli("tournament", submissions, "titfortat", "--seed", "2",
                               "--isolation", "process", "--length", "5", "5",
                               "--timeout", "10", "--roster", ROSTERS / roster,
                               "--grades", grades, *extra)
    assert status == 0, err
    return grades.read_text(encoding="utf-8"), out, err


def rows_of(text):
    return list(csv.reader(io.StringIO(text)))


def roster_rows(name):
    return list(csv.DictReader(io.StringIO((ROSTERS / name).read_text(encoding="utf-8-sig"))))


def test_canvas_reads_one_row_per_student_matched_by_its_ids(tmp_path, submissions):
    text, _out, _err = run(tmp_path, submissions, "canvas.csv")
    rows = rows_of(text)
    header = rows[0]
    # Canvas's import: the student columns first, in its export's order
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    grade = header.index("PD Tournament")
    assert rows[1][0].strip() == "Points Possible" and rows[1][grade] == "100"
    exported = {row["canvas_user_id"]: row for row in roster_rows("canvas.csv")}
    students = rows[2:]
    assert sorted(row[1] for row in students) == sorted(exported)
    for row in students:
        source = exported[row[1]]
        assert row[0] == source["name"] and row[2] == source["user_id"]
        assert row[3] == source["login_id"] and row[header.index("Team")] == source["group_name"]
        assert 60 <= float(row[grade]) <= 100
    winners = {row[0] for row in students if row[grade] == "100"}
    assert winners == {"Levinson, Jonathan", "Khosmood, Foaad"}   # DDD beats CCC and tft


def test_moodle_reads_rows_by_email_and_an_unassigned_student_keeps_his_grade(
        tmp_path, submissions):
    text, _out, err = run(tmp_path, submissions, "moodle.csv", "--grade-top", "10",
                          "--grade-bottom", "4", "--grade-column", "Project 1")
    table = list(csv.DictReader(io.StringIO(text)))
    emails = {row["Email address"] for row in roster_rows("moodle.csv")}
    assert {row["Email address"] for row in table} == emails
    by_email = {row["Email address"]: row for row in table}
    assert by_email["fk@example.edu"]["Project 1"] == "10"
    assert by_email["as@example.edu"]["Project 1"] == "4"       # last of three ranks
    assert by_email["su@example.edu"]["Project 1"] == ""        # in no group: left as is
    assert "Sam Unassigned" in err


def test_blackboard_rows_carry_the_username(tmp_path, submissions):
    text, _out, _err = run(tmp_path, submissions, "blackboard.csv")
    table = list(csv.DictReader(io.StringIO(text)))
    assert [row["Username"] for row in table] == [r["User Name"]
                                                 for r in roster_rows("blackboard.csv")]


def test_format_csv_still_prints_one_row_per_agent(tmp_path, submissions):
    _text, out, _err = run(tmp_path, submissions, "canvas.csv", "--format", "csv")
    rows = rows_of(out)
    assert rows[0][:2] == ["rank", "agent"] and len(rows) == 1 + 3


def test_a_team_per_row_roster_gives_the_per_agent_grades(tmp_path, submissions):
    roster = tmp_path / "teams.csv"
    roster.write_text("Khosmood,Levinson\nMuñoz,Smith-Jones\n", encoding="utf-8")
    grades = tmp_path / "grades.csv"
    status, _out, err = run_cli("tournament", submissions, "--seed", "2", "--length", "4",
                                "4", "--isolation", "process", "--roster", roster,
                                "--grades", grades)
    assert status == 0, err
    assert rows_of(grades.read_text())[0][:2] == ["rank", "agent"]


def test_show_writes_the_same_gradebook_from_the_record(tmp_path, submissions):
    db = tmp_path / "run.sqlite"
    first, _out, _err = run(tmp_path, submissions, "canvas.csv", "--db", db)
    again = tmp_path / "again.csv"
    status, _out, err = run_cli("show", db, "--roster", ROSTERS / "canvas.csv",
                                "--grades", again)
    assert status == 0, err
    assert again.read_text(encoding="utf-8") == first


def test_the_grade_mapping_comes_from_the_course_file(tmp_path, submissions):
    (tmp_path / "pdharness.toml").write_text('grade-top = 20\ngrade-bottom = 10\n'
                                             'grade-column = "Tournament (1234)"\n')
    grades = tmp_path / "grades.csv"
    status, _out, err = run_cli("tournament", submissions, "titfortat", "--seed", "2",
                                "--isolation", "process", "--length", "5", "5",
                                "--timeout", "10", "--roster", ROSTERS / "canvas.csv",
                                "--grades", grades, cwd=tmp_path)
    assert status == 0, err
    rows = rows_of(grades.read_text(encoding="utf-8"))
    column = rows[0].index("Tournament (1234)")
    assert {row[column] for row in rows[2:]} == {"20", "10"}


@settings(deadline=None)   # the first example imports the module
@given(st.integers(1, 60), st.floats(0, 1000), st.floats(0, 1000))
def test_grades_fall_from_top_to_bottom_with_rank(ranks, top, bottom):
    from harness.present.gradebook import grade_for

    grades = [grade_for(rank, ranks, top, bottom) for rank in range(1, ranks + 1)]
    assert grades[0] == round(top, 2)
    if ranks > 1:
        assert grades[-1] == pytest.approx(bottom, abs=0.01)
    step = 1 if top >= bottom else -1
    assert all(step * (a - b) >= -0.01 for a, b in zip(grades, grades[1:], strict=False))


def test_agents_of_no_roster_team_are_named_not_silently_left_out(tmp_path, submissions):
    """A stray submission (on no team of the roster) has no student row to carry its grade:
    the command names it; the built-in in the run is no student's and is not named."""
    folder = tmp_path / "subs"
    folder.mkdir()
    for path in submissions.iterdir():
        (folder / path.name).write_text(path.read_text())
    (folder / "GrayHunt.py").write_text("def GrayHunt(hist, score):\n    return 'CCC'\n")
    _text, _out, err = run(tmp_path, folder, "canvas.csv")
    [note] = [row for row in err.splitlines() if "match no team" in row]
    assert note.endswith("so no student gets their grade: GrayHunt")
    assert "titfortat" not in note


def test_a_roster_of_teams_names_the_missing_teams_and_the_strays_too(tmp_path, submissions):
    """With one team per row, --grades writes the per-agent file; the command still names
    the roster's teams with no agent in the run and the agents of no roster team."""
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "KhosmoodLevinson.py").write_text(
        (submissions / "KhosmoodLevinson.py").read_text())
    (folder / "GrayHunt.py").write_text("def GrayHunt(hist, score):\n    return 'CCC'\n")
    text, _out, err = run(tmp_path, folder, "roster.csv")
    assert rows_of(text)[0][:2] == ["rank", "agent"]
    [missing] = [row for row in err.splitlines() if "no agent in this run" in row]
    assert "Muñoz, Smith-Jones" in missing and "Khosmood" not in missing
    [note] = [row for row in err.splitlines() if "match no team" in row]
    assert note.endswith(": GrayHunt")
    assert "titfortat" not in note


def test_validate_with_a_roster_names_the_teams_that_submitted_nothing(tmp_path, submissions):
    """Of a class's folder, not of one student's file: the student checking theirs is not
    told the roster's other teams are missing."""
    status, _out, err = run_cli("validate", submissions / "KhosmoodLevinson.py", "--roster",
                                ROSTERS / "roster.csv", "--isolation", "process")
    assert status == 0, err
    assert "submitted nothing" not in err
    status, _out, err = run_cli("validate", submissions, "--roster", ROSTERS / "roster.csv",
                                "--isolation", "process", "--format", "json")
    [note] = [row for row in err.splitlines() if "submitted nothing" in row]
    assert "Muñoz" not in note and "Allen, Bell" in note   # MunozSmithJones: its team
