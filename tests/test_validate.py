"""`pdharness validate` and `pdharness new`: a real file for every problem code."""
import json

import pytest

from conftest import AGENTS, run_cli
from harness.validation.naming import Roster, Team, check_name

FILES = AGENTS / "validate"


def validate(*paths, options=("--isolation", "process", "--timeout", "0.5")):
    status, out, err = run_cli("validate", *paths, "--format", "json", *options)
    assert status in (0, 1), err
    return status, json.loads(out)


def codes(entry):
    return sorted({p["code"] for p in entry["problems"]})


@pytest.mark.parametrize("name,code", [
    ("khosmood_levinson.py", "name-format"),
    ("LevinsonKhosmood.py", "name-order"),
    ("AdamsBaker.py", "file-name-mismatch"),
    ("CarterDavis.py", "no-agent"),
    ("EvansFord.py", "several-agents"),
    ("HillIrwin.py", "syntax-error"),
    ("JonesKing.py", "load-error"),
    ("LeeMoore.py", "bad-answer"),
    ("NashOwen.py", "timeout"),
    ("ParkQuinn.py", "exception"),
    ("VanceWest.hy", "syntax-error"),
    ("WestYoung.hy", "bad-answer"),
    ("YoungZhang.hy", "no-agent"),
    ("BellCole.lisp", "syntax-error"),
    ("ColeDunn.lisp", "load-error"),
    ("DunnEast.lisp", "no-agent"),
])
def test_each_problem_code_from_a_real_file(name, code, request):
    if name.endswith(".lisp"):
        request.getfixturevalue("sbcl")
    status, [entry] = validate(FILES / name)
    assert status == 1
    assert codes(entry) == [code], entry
    assert all(p["message"] for p in entry["problems"])


def test_problems_quote_what_went_wrong():
    _, [bad] = validate(FILES / "LeeMoore.py")
    assert "'X' is not a move" in bad["problems"][0]["message"]
    assert "call 2 against" in bad["problems"][0]["message"]
    _, [syntax] = validate(FILES / "HillIrwin.py")
    assert "line 1" in syntax["problems"][0]["message"]


def test_lisp_helpers_must_carry_the_agents_name(sbcl):
    status, [entry] = validate(FILES / "AllenBell.lisp")
    assert codes(entry) == ["helper-not-prefixed"]
    message = entry["problems"][0]["message"]
    assert "*moves*" in message and "last-move" in message
    assert "AllenBell-first" not in message and "not-a-definition" not in message
    assert "nor-this" not in message


def test_warnings_do_not_fail_a_submission(sbcl):
    for name, needle in (("ReedShaw.py", "non-canonically"), ("EastFox.lisp", "non-canonically"),
                         ("McDonaldSmith.py", "cannot tell for sure")):
        status, [entry] = validate(FILES / name)
        assert status == 0 and entry["ok"], entry
        assert any(needle in w for w in entry["warnings"]), entry


def test_the_same_name_twice_is_a_duplicate():
    status, entries = validate(FILES / "dup1" / "TateUpton.py", FILES / "dup2" / "TateUpton.hy")
    assert status == 1
    assert all(codes(e) == ["duplicate-name"] for e in entries)


def test_roster_matching_accepts_team_rows_and_lms_exports():
    for roster in ("roster.csv", "canvas.csv"):
        teams = Roster.read(FILES / roster)
        assert teams.team_for("KhosmoodLevinson") is not None
        assert teams.team_for("MunozSmithJones") is not None   # Muñoz, Smith-Jones
        assert teams.team_for("KhosmoodSmith") is None
    assert Team(("Smith-Jones", "Muñoz")).agent_name == "MuñozSmithJones"


def test_with_a_roster_names_must_be_a_team(tmp_path):
    roster = ("--roster", str(FILES / "roster.csv"), "--isolation", "process")
    status, [entry] = validate(FILES / "MunozSmithJones.py", options=roster)
    assert status == 0, entry
    status, [entry] = validate(FILES / "LevinsonKhosmood.py", options=roster)
    assert codes(entry) == ["name-order"] and "KhosmoodLevinson" in entry["problems"][0]["message"]
    stranger = tmp_path / "GrayHunt.py"
    stranger.write_text("def GrayHunt(hist, score):\n    return ['C', 'C', 'C']\n")
    status, [entry] = validate(stranger, options=roster)
    assert codes(entry) == ["not-on-roster"]


def test_the_name_rule_without_a_roster():
    assert check_name("KhosmoodLevinson").problems == []
    assert check_name("LevinsonKhosmood").problems[0][0] == "name-order"
    assert check_name("McDonald").warnings and not check_name("McDonald").problems
    assert check_name("Khosmood-Levinson").problems[0][0] == "name-format"


def test_exit_codes_and_the_table():
    status, out, _ = run_cli("validate", FILES / "ReedShaw.py", "--isolation", "process")
    assert status == 0 and out.startswith("ok  ")
    status, out, _ = run_cli("validate", FILES / "LeeMoore.py", "--isolation", "process")
    assert status == 1 and "bad-answer" in out and "fix: Return a list" in out
    status, _, err = run_cli("validate", FILES / "nothing-here.py")
    assert status == 2 and "no such file" in err


@pytest.mark.parametrize("language", ["py", "hy", "lisp"])
def test_new_writes_a_template_that_validates(language, tmp_path, request):
    if language == "lisp":
        request.getfixturevalue("sbcl")
    status, out, err = run_cli("new", "Levinson", "Khosmood", "--lang", language, cwd=tmp_path)
    assert status == 0, err
    written = tmp_path / f"KhosmoodLevinson.{language}"
    assert written.exists()
    status, [entry] = validate(written)
    assert status == 0 and entry["ok"] and entry["warnings"] == [], entry
    status, _, err = run_cli("new", "Khosmood", "Levinson", "--lang", language, cwd=tmp_path)
    assert status == 2 and "already exists" in err


def test_validate_in_the_sandbox(bwrap):
    status, [entry] = validate(FILES / "ParkQuinn.py", options=("--isolation", "sandbox"))
    assert codes(entry) == ["exception"]
