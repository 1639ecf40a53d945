"""`pdharness new`: a correctly named, commented, runnable template that validates."""
import json

import pytest

from conftest import run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

LANGUAGES = ["py", "hy", "lisp"]
LANGUAGE_NAMES = {"py": "python", "hy": "hy", "lisp": "lisp"}


@pytest.fixture
def needs(request):
    def need(language):
        if language == "lisp":
            request.getfixturevalue("sbcl")
    return need


def validate(path, *options):
    status, out, err = run_cli("validate", path, "--format", "json", *options)
    assert status in (0, 1), err
    return status, json.loads(out)[0]


@pytest.mark.parametrize("language", LANGUAGES)
def test_new_then_validate(language, tmp_path, needs):
    """The round trip, in the default isolation (the sandbox, as students run it)."""
    needs(language)
    status, out, err = run_cli("new", "Levinson", "Khosmood", "--lang", language, cwd=tmp_path)
    assert status == 0, err
    written = tmp_path / f"KhosmoodLevinson.{language}"
    assert f"wrote KhosmoodLevinson.{language}" in out
    status, entry = validate(written)
    assert status == 0 and entry["ok"], entry
    assert entry["warnings"] == [] and entry["language"] == LANGUAGE_NAMES[language]
    assert entry["agent"] == "KhosmoodLevinson"


@pytest.mark.parametrize("language", LANGUAGES)
def test_real_names_round_trip(language, tmp_path, needs):
    """Accents, hyphens, apostrophes and particles: the file names its team, so the name
    validates without a roster and without a warning."""
    needs(language)
    for members, name in ((["Smith-Jones", "Muñoz"], "MuñozSmithJones"),
                          (["o'brien", "de la Cruz", "LEVINSON"], "DeLaCruzLevinsonOBrien")):
        status, _, err = run_cli("new", *members, "--lang", language, "--dir", tmp_path)
        assert status == 0, err
        status, entry = validate(tmp_path / f"{name}.{language}", "--isolation", "process")
        assert status == 0 and entry["warnings"] == [], entry


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_template_plays_tit_for_tat(language, tmp_path, needs):
    needs(language)
    run_cli("new", "Adams", "--lang", language, "--dir", tmp_path)
    status, out, err = run_cli("play", tmp_path / f"Adams.{language}", "random", "--turns", "4",
                               "--seed", "3", "--format", "json", "--isolation", "process")
    assert status == 0, err
    game = json.loads(out)
    me, them = ("a", "b") if game["agents"][0] == "Adams" else ("b", "a")
    turns = game["turns"]
    assert turns[0][me]["intended"] == ["C", "C", "C"]
    for before, turn in zip(turns, turns[1:], strict=False):
        assert turn[me]["intended"] == before[them]["played"]
        assert turn["faults"][me] is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_template_is_commented(language, tmp_path):
    run_cli("new", "Chen", "Diaz", "--lang", language, "--dir", tmp_path)
    text = (tmp_path / f"ChenDiaz.{language}").read_text(encoding="utf-8")
    assert "Team: Chen, Diaz" in text and "{name}" not in text and "{team}" not in text
    assert "hist" in text and "score" in text and "pdharness validate ChenDiaz" in text
    if language == "lisp":
        assert "ChenDiaz-their-moves" in text and "one Lisp image" in text


def test_new_refuses_to_overwrite(tmp_path):
    target = tmp_path / "KhosmoodLevinson.py"
    target.write_text("# our work\n")
    status, out, err = run_cli("new", "Khosmood", "Levinson", "--dir", tmp_path)
    assert status == 2 and "already exists; not overwriting it" in err
    assert target.read_text() == "# our work\n"


@pytest.mark.parametrize("arguments,needle", [
    (["Lev1nson"], "'Lev1nson': a last name is written in letters"),
    (["--lang", "java", "Adams"], "--lang"),
    ([], "Missing argument"),
])
def test_bad_usage(arguments, needle, tmp_path):
    status, out, err = run_cli("new", *arguments, cwd=tmp_path)
    assert status == 2 and needle in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_new_writes_into_a_folder_it_creates(tmp_path):
    status, _, err = run_cli("new", "Adams", "Brown", "--lang", "hy", "--dir",
                             tmp_path / "team" / "agents")
    assert status == 0, err
    assert (tmp_path / "team" / "agents" / "AdamsBrown.hy").is_file()
