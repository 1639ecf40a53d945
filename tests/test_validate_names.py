"""The naming rule, real names, rosters in the shapes instructors have, and matching."""
import json
import zipfile

import pytest
from hypothesis import given, strategies as st

from harness.core.errors import HarnessError
from harness.validation.naming import (
    AMBIGUOUS_PREFIXES,
    agent_name_of,
    check_name,
    declared_team,
    name_for,
)
from harness.validation.roster import Roster, Team

from conftest import AGENTS, run_cli

FILES = AGENTS / "validate"
ROSTERS = FILES / "rosters"


def problems(name):
    return [code for code, _message in check_name(name).problems]


# -- the rule without a roster --------------------------------------------------------------
@pytest.mark.parametrize("name,codes", [
    ("KhosmoodLevinson", []), ("Levinson", []), ("AdamsBrownChen", []),
    ("LevinsonKhosmood", ["name-order"]), ("BrownAdamsChen", ["name-order"]),
    ("khosmoodLevinson", ["name-format"]), ("khosmood_levinson", ["name-format"]),
    ("Khosmood-Levinson", ["name-format"]), ("Khosmood2", ["name-format"]),
    ("KHOSMOODLEVINSON", ["name-format"]), ("KhosmoodLEVINSON", ["name-format"]),
    ("MuñozSmith", []), ("SmithMuñoz", ["name-order"]),
    ("ÁlvarezBaker", []),  # sorted without accents: alvarez < baker
])
def test_the_rule(name, codes):
    assert problems(name) == codes


@pytest.mark.parametrize("name", ["McDonald", "DeLaCruz", "OBrien", "McDonaldSmith",
                                  "AdamsVanDerBerg", "DiazOBrien"])
def test_names_that_cannot_be_split_for_sure_get_a_warning(name):
    check = check_name(name)
    assert check.problems == [] and len(check.warnings) == 1
    assert "cannot tell for sure" in check.warnings[0]


@pytest.mark.parametrize("name,expected", [("SmithMcDonald", "McDonaldSmith"),
                                           ("SmithOBrien", "OBrienSmith")])
def test_an_uncertain_split_out_of_order_every_way_is_a_problem(name, expected):
    [(code, message)] = check_name(name).problems
    assert code == "name-order" and f"should be {expected}" in message


def test_format_problems_suggest_the_name():
    assert "perhaps KhosmoodLevinson" in check_name("khosmood_levinson").problems[0][1]
    assert "perhaps KhosmoodLevinson" in check_name("levinson-khosmood").problems[0][1]


HEADER_WORDS = {"team", "group", "grp", "member", "members", "student", "students", "name",
                "names", "last", "surname", "family", "partner", "partners", "author",
                "authors", "lastname", "surnames", "groupname", "teamname"}
simple_names = st.from_regex(r"[A-Z][a-z]{2,9}", fullmatch=True).filter(
    lambda n: n not in AMBIGUOUS_PREFIXES and n.lower() not in HEADER_WORDS)


@pytest.mark.slow  # measured: seconds of CPU
@given(st.lists(simple_names, min_size=1, max_size=4, unique_by=str.lower))
def test_a_team_name_passes_in_its_order_only(members):
    assert problems(name_for(members)) == []
    in_order = sorted(members, key=str.lower)
    if members != in_order:
        assert problems("".join(members)) == ["name-order"]


@pytest.mark.slow  # measured: seconds of CPU
@given(st.lists(simple_names, min_size=1, max_size=4))
def test_name_for_ignores_the_order_given(members):
    assert name_for(members) == name_for(list(reversed(members)))


# -- real names ------------------------------------------------------------------------------
@pytest.mark.parametrize("written,in_agent_name", [
    ("Muñoz", "Muñoz"), ("Smith-Jones", "SmithJones"), ("O'Brien", "OBrien"),
    ("de la Cruz", "DeLaCruz"), ("LEVINSON", "Levinson"), ("levinson", "Levinson"),
    ("McDonald", "McDonald"), ("St. John", "StJohn")])
def test_real_names_in_agent_names(written, in_agent_name):
    assert agent_name_of(written) == in_agent_name


def test_teams_sort_by_the_names_as_written_in_the_agent_name():
    assert name_for(["Smith-Jones", "Muñoz"]) == "MuñozSmithJones"
    assert name_for(["de la Cruz", "Delacroix"]) == "DelacroixDeLaCruz"
    assert name_for(["Levinson", "Khosmood"]) == "KhosmoodLevinson"


def test_a_file_may_name_its_team():
    assert declared_team('"""KhosmoodLevinson.\n\nTeam: Levinson, Khosmood\n"""') == [
        "Levinson", "Khosmood"]
    assert declared_team(";;;; Team: Muñoz and Smith-Jones\n") == ["Muñoz", "Smith-Jones"]
    assert declared_team("# teamwork: none\ndef f(): pass\n") is None


@pytest.mark.slow  # measured: seconds of CPU
def test_a_named_team_settles_a_hyphenated_name(tmp_path):
    agent = tmp_path / "MunozSmithJones.py"
    agent.write_text('"""Team: Smith-Jones, Muñoz"""\n\n\ndef MunozSmithJones(hist, score):\n'
                     '    return ["C", "C", "C"]\n')
    status, out, err = run_cli("validate", agent, "--format", "json", "--isolation", "process")
    assert status == 0, out + err
    assert json.loads(out)[0]["warnings"] == []
    agent.write_text(agent.read_text().replace("MunozSmithJones", "SmithJonesMunoz"))
    moved = agent.rename(tmp_path / "SmithJonesMunoz.py")
    status, out, _ = run_cli("validate", moved, "--format", "json", "--isolation", "process")
    [entry] = json.loads(out)
    assert status == 1 and [p["code"] for p in entry["problems"]] == ["name-order"]
    assert "MuñozSmithJones" in entry["problems"][0]["message"]


# -- rosters -----------------------------------------------------------------------------
@pytest.mark.parametrize("roster", ["roster.csv", "canvas.csv", "moodle.csv", "blackboard.csv",
                                    "semicolons.csv", "excel-unicode.txt", "windows-1252.csv"])
def test_roster_shapes(roster):
    teams = Roster.read(ROSTERS / roster)
    assert teams.team_for("KhosmoodLevinson").members in (("Khosmood", "Levinson"),
                                                           ("Levinson", "Khosmood"))
    assert sorted(teams.team_for("MunozSmithJones").members) == ["Muñoz", "Smith-Jones"]
    assert teams.team_for("MuñozSmithJones") is teams.team_for("munozsmithjones")
    assert teams.team_for("KhosmoodSmith") is None
    assert teams.team_for("Unassigned") is None   # a student without a group is no team
    assert all(member != "Team Alpha" and "@" not in member
               for team in teams.teams for member in team.members)


def test_roster_labels_are_kept_for_messages():
    teams = Roster.read(ROSTERS / "moodle.csv")
    assert teams.team_for("KhosmoodLevinson").label == "Team Alpha"


@pytest.mark.slow  # measured: seconds of CPU
@given(st.lists(st.lists(simple_names, min_size=1, max_size=4, unique_by=str.lower),
                min_size=1, max_size=6))
def test_any_team_per_row_roster_reads_back(tmp_path_factory, teams):
    path = tmp_path_factory.mktemp("roster") / "teams.csv"
    path.write_text("\n".join(",".join(team) for team in teams) + "\n", encoding="utf-8")
    roster = Roster.read(path)
    for team in teams:
        assert roster.team_for(name_for(team)) is not None


def test_a_workbook_is_refused_with_advice(tmp_path):
    workbook = tmp_path / "teams.xlsx"
    with zipfile.ZipFile(workbook, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(HarnessError, match="save it as CSV"):
        Roster.read(workbook)


def test_team_matching():
    roster = Roster([Team(("Levinson", "Khosmood")), Team(("Smith-Jones", "Muñoz"))])
    assert roster.team_with_members(["Khosmood", "Levinson"]) == Team(("Levinson", "Khosmood"))
    assert roster.closest("KhosmodLevinson").agent_name == "KhosmoodLevinson"
    assert roster.closest("AdamsBrown") is None


# -- validate with a roster ------------------------------------------------------------------
def roster_verdicts(*paths, roster="roster.csv"):
    status, out, err = run_cli("validate", *paths, "--roster", ROSTERS / roster, "--format",
                               "json", "--isolation", "process")
    assert status in (0, 1), err
    return status, {entry["agent"]: entry for entry in json.loads(out)}


@pytest.mark.slow  # measured: seconds of CPU
def test_with_a_roster_a_hyphenated_name_passes_and_order_is_the_rosters():
    status, found = roster_verdicts(FILES / "names" / "MunozSmithJones.py",
                                    FILES / "py" / "LevinsonKhosmood.py")
    assert found["MunozSmithJones"]["ok"] and found["MunozSmithJones"]["warnings"] == []
    [problem] = found["LevinsonKhosmood"]["problems"]
    assert problem["code"] == "name-order" and "KhosmoodLevinson" in problem["message"]
    assert status == 1


def test_with_a_roster_an_uncertain_split_is_no_longer_a_warning(tmp_path):
    (tmp_path / "roster.csv").write_text("McDonald,Smith\n")
    agent = tmp_path / "McDonaldSmith.py"
    agent.write_text("def McDonaldSmith(hist, score):\n    return ['C', 'C', 'C']\n")
    status, out, _ = run_cli("validate", agent, "--roster", tmp_path / "roster.csv",
                             "--format", "json", "--isolation", "process")
    assert status == 0 and json.loads(out)[0]["warnings"] == []


@pytest.mark.slow  # measured: seconds of CPU
@pytest.mark.parametrize("language", ["py", "hy", "lisp"])
def test_a_team_not_on_the_roster(language, tmp_path, request):
    if language == "lisp":
        request.getfixturevalue("sbcl")
    for members in (["Gray", "Hunt"], ["Khosmod", "Levinson"]):
        status, _, err = run_cli("new", *members, "--lang", language, "--dir", tmp_path)
        assert status == 0, err
    status, found = roster_verdicts(tmp_path)
    assert status == 1
    for agent, guess in (("GrayHunt", None), ("KhosmodLevinson", "KhosmoodLevinson")):
        [problem] = found[agent]["problems"]
        assert problem["code"] == "not-on-roster"
        assert (f"did you mean {guess}" in problem["message"]) == (guess is not None)


def test_a_team_line_settles_an_uncertain_split(tmp_path):
    agent = tmp_path / "McDonaldSmith.lisp"
    agent.write_text(";;;; Team: Smith, McDonald\n(defun McDonaldSmith (hist score)\n"
                     "  (declare (ignore hist score))\n  (list 'C 'C 'C))\n")
    status, out, err = run_cli("validate", agent, "--format", "json", "--isolation", "process")
    assert status == 0 and json.loads(out)[0]["warnings"] == [], out + err


def test_a_badly_cased_name_is_suggested_as_the_roster_spells_it(tmp_path):
    """brownchen: the capitals alone would guess Brownchen; the roster knows BrownChen."""
    (tmp_path / "roster.csv").write_text("Brown,Chen\n")
    agent = tmp_path / "brownchen.py"
    agent.write_text("def brownchen(hist, score):\n    return ['C', 'C', 'C']\n")
    _status, out, err = run_cli("validate", agent, "--roster", tmp_path / "roster.csv",
                                "--format", "json", "--isolation", "process")
    [problem] = json.loads(out)[0]["problems"]
    assert problem["code"] == "name-format", err
    assert problem["message"].endswith("; perhaps BrownChen")
    assert check_name("brownchen").problems[0][1].endswith("; perhaps Brownchen")  # no roster
