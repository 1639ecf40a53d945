"""`pdharness autograder DIR`: the bundle as Gradescope takes it (the zip's root), unpacked
into a folder laid out as Gradescope lays out /autograder, run for real uploads of each
language, good and bad, with and without bubblewrap; results.json read as Gradescope's
specification defines it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

VALIDATE = AGENTS / "validate"
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bundle") / "autograder"
    # a generous time limit: a good agent must pass on a machine as busy as it gets
    status, out, err = run_cli("autograder", folder, "--points", "20", "--timeout", "5")
    assert status == 0, err
    assert str(folder / "autograder.zip") in out
    return folder


def gradescope_layout(tmp_path, bundle, uploads) -> Path:
    """/autograder as Gradescope builds it: the zip unpacked in source/, run_autograder
    copied to the root, the student's files in submission/, an empty results/."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle / "autograder.zip") as zipped:
        zipped.extractall(root / "source")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for upload in uploads:
        shutil.copy2(upload, root / "submission" / Path(upload).name)
    return root


def run_autograder(root: Path, path_dirs: str | None = None) -> dict:
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PDHARNESS_PYTHON=sys.executable)
    env.pop("PYTHONPATH", None)   # the bundle's own copy of the harness must do
    if path_dirs is not None:
        env["PATH"] = path_dirs
    (root / "run_autograder").chmod(0o755)
    done = subprocess.run(["/bin/bash", str(root / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    check_gradescope_shape(results)
    return results


def check_gradescope_shape(results: dict) -> None:
    """The fields and types of Gradescope's autograder specification."""
    assert isinstance(results["score"], (int, float))
    assert results["stdout_visibility"] in VISIBILITIES
    assert results["visibility"] in VISIBILITIES
    assert isinstance(results["execution_time"], int) and results["execution_time"] >= 0
    for entry in results.get("leaderboard", []):
        assert isinstance(entry["name"], str) and isinstance(entry["value"], (int, float))
        assert entry.get("order", "desc") in ("asc", "desc")
    assert isinstance(results["output"], str)
    total = 0
    for test in results["tests"]:
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["output"], str)
        assert 0 <= test["score"] <= test["max_score"]
        assert test["visibility"] in VISIBILITIES
        assert test["status"] in ("passed", "failed")
        assert (test["status"] == "passed") == (test["score"] == test["max_score"])
        total += test["score"]
    assert results["score"] == pytest.approx(total)


def by_name(results) -> dict:
    return {test["name"].split(":")[0]: test for test in results["tests"]}


def new_agent(tmp_path, lang) -> Path:
    status, _out, err = run_cli("new", "Levinson", "Khosmood", "--lang", lang,
                                "--dir", tmp_path / "written")
    assert status == 0, err
    return tmp_path / "written" / f"KhosmoodLevinson.{lang}"


def test_the_zip_holds_the_two_scripts_at_its_root_executable(bundle):
    with zipfile.ZipFile(bundle / "autograder.zip") as zipped:
        infos = {info.filename: info for info in zipped.infolist()}
    for script in ("setup.sh", "run_autograder"):
        assert script in infos
        assert (infos[script].external_attr >> 16) & 0o111
    assert "pdharness/harness/autograder/grade.py" in infos
    assert not any("__pycache__" in name for name in infos)


@pytest.mark.parametrize("lang", ["py", "hy", "lisp"])
def test_a_good_upload_gets_every_point_and_practice_scores(tmp_path, bundle, lang, sbcl,
                                                             bwrap):
    root = gradescope_layout(tmp_path, bundle, [new_agent(tmp_path, lang)])
    results = run_autograder(root)
    assert results["score"] == 20
    assert all(test["status"] == "passed" for test in results["tests"])
    practice = by_name(results)["Practice games against built-in agents (not graded)"]
    assert practice["max_score"] == 0
    assert "vs titfortat" in practice["output"] and "vs defect" in practice["output"]
    assert "Bubblewrap cannot run" not in results["output"]
    assert results["stdout_visibility"] == "hidden"
    # the leaderboard's value is the practice score: the agent's points in those games
    mine = [int(row.split()[2]) for row in practice["output"].splitlines()
            if row.strip().startswith("vs ")]
    assert results["leaderboard"] == [{"name": "Practice score vs built-ins",
                                       "value": sum(mine), "order": "desc"}]


@pytest.mark.parametrize("upload, failed, says", [
    (VALIDATE / "py" / "ParkQuinn.py", "Plays", "ParkQuinn([], [0, 0])"),
    (VALIDATE / "hy" / "DyerEllis.hy", "Loads", "load-error"),
    (VALIDATE / "lisp" / "KhanLowe.lisp", "Plays", "gave up"),
    (VALIDATE / "lisp" / "DunnEast.lisp", "Loads", "no-agent"),
])
def test_a_bad_upload_fails_its_check_with_validates_hint(tmp_path, bundle, upload, failed,
                                                           says, sbcl, bwrap):
    results = run_autograder(gradescope_layout(tmp_path, bundle, [upload]))
    tests = by_name(results)
    assert tests[failed]["status"] == "failed"
    assert says in tests[failed]["output"]
    assert "fix: " in tests[failed]["output"]
    assert tests["One agent file (.py, .hy or .lisp)"]["status"] == "passed"
    assert results["score"] < 20
    assert not any(name.startswith("Practice") for name in tests)


def test_a_check_after_a_failed_one_is_not_passed(tmp_path, bundle, bwrap):
    """A file that does not load has not shown that it plays the contract."""
    results = run_autograder(gradescope_layout(tmp_path, bundle,
                                               [VALIDATE / "py" / "JonesKing.py"]))
    tests = by_name(results)
    assert tests["Loads"]["status"] == "failed"
    assert tests["Plays"]["status"] == "failed"
    assert "Not checked" in tests["Plays"]["output"]


def test_an_upload_without_an_agent_file_says_what_was_uploaded(tmp_path, bundle):
    notes = tmp_path / "notes.txt"
    notes.write_text("my strategy\n")
    results = run_autograder(gradescope_layout(tmp_path, bundle, [notes]))
    assert results["score"] == 0
    first = results["tests"][0]
    assert first["status"] == "failed" and "notes.txt" in first["output"]


def test_two_agent_files_fail_the_one_file_check(tmp_path, bundle, bwrap):
    uploads = [new_agent(tmp_path, "py"), VALIDATE / "warnings" / "OrrPage.py"]
    results = run_autograder(gradescope_layout(tmp_path, bundle, uploads))
    first = results["tests"][0]
    assert first["status"] == "failed"
    assert "KhosmoodLevinson.py" in first["output"] and "OrrPage.py" in first["output"]


def test_without_bubblewrap_the_output_says_so_and_limits_still_hold(tmp_path, bundle, sbcl):
    """Gradescope's container may not allow bubblewrap: the agents then run as plain
    processes with the resource limits, and the student's output says so."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("mkdir", "sbcl", "prlimit", "setpriv"):
        found = shutil.which(tool)
        if found:
            (tools / tool).symlink_to(found)
    root = gradescope_layout(tmp_path, bundle, [VALIDATE / "py" / "NashOwen.py"])
    results = run_autograder(root, path_dirs=str(tools))
    assert "Bubblewrap cannot run in this container" in results["output"]
    assert "plain process" in results["output"]
    plays = by_name(results)["Plays"]
    assert plays["status"] == "failed" and "timeout" in plays["output"]


def test_the_roster_goes_into_the_bundle_and_names_are_checked_against_it(tmp_path, bwrap):
    folder = tmp_path / "bundle"
    status, _out, err = run_cli("autograder", folder, "--roster",
                                VALIDATE / "rosters" / "canvas.csv", "--timeout", "5")
    assert status == 0, err
    good = new_agent(tmp_path, "py")
    results = run_autograder(gradescope_layout(tmp_path / "a", folder, [good]))
    assert by_name(results)["Name"]["status"] == "passed"
    stranger = tmp_path / "OrrPage.py"
    shutil.copy2(VALIDATE / "warnings" / "OrrPage.py", stranger)
    results = run_autograder(gradescope_layout(tmp_path / "b", folder, [stranger]))
    name = by_name(results)["Name"]
    assert name["status"] == "failed" and "not-on-roster" in name["output"]


def test_setup_sh_installs_pinned_dependencies_and_warms_the_harness(tmp_path, bundle, sbcl):
    """setup.sh as Gradescope runs it, with apt-get stubbed (no network here) and pip
    allowed only to find what is already installed."""
    root = gradescope_layout(tmp_path, bundle, [])
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "apt-get").write_text("#!/bin/sh\nexit 0\n")
    (stubs / "apt-get").chmod(0o755)
    python = Path(sys.executable).parent   # `python3` is this interpreter
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PIP_NO_INDEX="1",
               PATH=f"{stubs}:{python}:{os.environ['PATH']}")
    env.pop("PYTHONPATH", None)
    text = (root / "source" / "setup.sh").read_text()
    assert "hy==" in text and "click==" in text
    done = subprocess.run(["/bin/bash", str(root / "source" / "setup.sh")], cwd=root / "source",
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.count("1 of 1 submission passes") == 3


def test_a_broken_roster_still_gives_the_student_a_results_file(tmp_path, bundle):
    root = gradescope_layout(tmp_path, bundle, [VALIDATE / "py" / "ParkQuinn.py"])
    settings = root / "source" / "pdharness-autograder.json"
    data = json.loads(settings.read_text())
    data["roster"] = "missing.csv"
    settings.write_text(json.dumps(data))
    results = run_autograder(root)
    assert results["score"] == 0 and "tell the instructor" in results["output"]
    assert results["stdout_visibility"] == "hidden"


def test_bundle_writes_over_an_earlier_bundle(tmp_path):
    folder = tmp_path / "bundle"
    for _ in range(2):
        status, _out, err = run_cli("autograder", folder)
        assert status == 0, err
    assert (folder / "run_autograder").stat().st_mode & 0o111
    with zipfile.ZipFile(folder / "autograder.zip") as zipped:
        names = zipped.namelist()
    assert "autograder.zip" not in names and len(names) == len(set(names))


def test_every_problem_code_of_validate_fails_exactly_one_check():
    from harness.autograder.grade import CHECKS
    from harness.validation.problems import CODES

    owners = [check.name for code in CODES for check in CHECKS if code in check.codes]
    assert len(owners) == len(CODES)


def test_what_the_agent_wrote_reaches_gradescope_escaped(tmp_path, bundle, bwrap):
    """An error message with terminal controls is shown, not obeyed."""
    upload = tmp_path / "EvilOrr.py"
    upload.write_text("def EvilOrr(hist, score):\n"
                      "    raise ValueError('\\x1b]0;pwned\\x07\\x1b[2J')\n")
    results = run_autograder(gradescope_layout(tmp_path, bundle, [upload]))
    plays = by_name(results)["Plays"]["output"]
    assert "\x1b" not in plays and "\\x1b]0;pwned" in plays


def test_the_instructor_chooses_visibility_and_the_leaderboard(tmp_path, bwrap):
    """Hidden until the due date, no leaderboard: every test and the whole result say so,
    and so does the result of an upload the autograder could not check."""
    folder = tmp_path / "bundle"
    status, _out, err = run_cli("autograder", folder, "--timeout", "5", "--visibility",
                                "after_due_date", "--no-leaderboard")
    assert status == 0, err
    root = gradescope_layout(tmp_path / "a", folder, [VALIDATE / "py" / "ParkQuinn.py"])
    results = run_autograder(root)
    assert results["visibility"] == "after_due_date" and "leaderboard" not in results
    assert {test["visibility"] for test in results["tests"]} == {"after_due_date"}
    root = gradescope_layout(tmp_path / "b", folder, [VALIDATE / "py" / "ParkQuinn.py"])
    settings = root / "source" / "pdharness-autograder.json"
    settings.write_text(json.dumps(dict(json.loads(settings.read_text()),
                                        roster="missing.csv")))
    results = run_autograder(root)
    assert "tell the instructor" in results["output"]
    assert results["visibility"] == "after_due_date"

# -- the verdict is the monitor's alone -----------------------------------------------------
def no_bubblewrap_path(tmp_path) -> str:
    """A PATH with what run_autograder needs but bubblewrap: the bundle's documented
    fallback, as in containers that forbid user namespaces."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("mkdir", "mktemp", "chmod", "mv", "sbcl", "prlimit", "setpriv"):
        found = shutil.which(tool)
        if found:
            (tools / tool).symlink_to(found)
    return str(tools)


@pytest.mark.parametrize("with_bubblewrap", [True, False], ids=["sandbox", "no-bubblewrap"])
def test_an_agent_cannot_forge_the_verdict(request, tmp_path, bundle, with_bubblewrap):
    """VerdictForger writes a full score into results.json and kills the monitor: the
    sandbox hides both from it; without bubblewrap a root monitor's agent runs as a user of
    its own, which may neither write the results folder nor signal the monitor; and a
    monitor that dies all the same leaves a failure, never the agent's file."""
    if with_bubblewrap:
        request.getfixturevalue("sandboxed")
    root = tmp_path / "autograder"
    upload = tmp_path / "VerdictForger.py"
    upload.write_text((AGENTS / "hostile" / "VerdictForger.py").read_text().replace(
        'RESULTS = ""', f'RESULTS = {str(root / "results" / "results.json")!r}'))
    gradescope_layout(tmp_path, bundle, [upload])
    results = run_autograder(root, None if with_bubblewrap else no_bubblewrap_path(tmp_path))
    assert results["score"] != 100 and results["output"] != "forged"
    if os.geteuid() == 0 or with_bubblewrap:   # else the monitor's own user is the agent's
        assert results["output"].startswith("Checked by pdharness")  # the monitor's


def test_a_grader_that_dies_leaves_a_failure_not_what_was_written_before(tmp_path, bundle):
    """Whatever ends the grader's process (an agent of a monitor that is not root, the
    kernel's OOM killer), run_autograder writes the failure over results.json."""
    root = gradescope_layout(tmp_path, bundle, [VALIDATE / "py" / "NashOwen.py"])
    dying = tmp_path / "dying-python"
    dying.write_text("#!/bin/sh\n"
                     f"echo '{{\"score\": 100, \"tests\": []}}' > {root}/results/results.json\n"
                     "kill -9 $$\n")
    dying.chmod(0o755)
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PDHARNESS_PYTHON=str(dying))
    done = subprocess.run(["/bin/bash", str(root / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope_shape(results)
    assert results["score"] == 0 and "tell the instructor" in results["output"]
    assert [p.name for p in (root / "results").iterdir()] == ["results.json"]


JIIBE = "(defn IbeJi [hist score]\n  [\"C\" \"C\" \"C\"])\n"


@pytest.mark.parametrize("file_name, source", [
    ("KhosmoodLevinson (1).py", None), ("KhosmoodLevinson_final.py", None)])
def test_an_upload_an_lms_renamed_keeps_its_points_with_a_warning(tmp_path, bundle, bwrap,
                                                                 file_name, source):
    """A file an LMS or a browser renamed plays as the agent it defines, as in every
    command: no point lost, a warning naming the file to use."""
    upload = tmp_path / "upload" / file_name
    upload.parent.mkdir()
    shutil.copy2(AGENTS.parent.parent / "student_agents" / "KhosmoodLevinson.py", upload)
    results = run_autograder(gradescope_layout(tmp_path, bundle, [upload]))
    tests = by_name(results)
    assert tests["Name"]["status"] == tests["Loads"]["status"] == "passed"
    assert tests["Plays"]["status"] == "passed"
    assert results["score"] == pytest.approx(20)
    assert "name the file KhosmoodLevinson.py" in results["output"]


@pytest.mark.parametrize("file_name, source", [
    ("khosmoodlevinson.py", None), ("KhosmoodLevinsonFinal.py", None), ("JiIbe.hy", JIIBE)])
def test_a_misnamed_upload_gets_validates_checks_and_fix(tmp_path, bundle, bwrap, file_name,
                                                          source):
    """A file named as another agent (capitals, order, another name): the upload is played
    by the function it defines, loses the name's points with validate's own code and fix,
    and never crashes the grader."""
    upload = tmp_path / "upload" / file_name
    upload.parent.mkdir()
    if source is None:
        shutil.copy2(AGENTS.parent.parent / "student_agents" / "KhosmoodLevinson.py", upload)
    else:
        upload.write_text(source)
    root = gradescope_layout(tmp_path, bundle, [upload])
    results = run_autograder(root)
    tests = by_name(results)
    assert tests["Name"]["status"] == "failed"
    assert "file-name-mismatch" in tests["Name"]["output"] and "fix:" in tests["Name"]["output"]
    assert tests["Loads"]["status"] == tests["Plays"]["status"] == "passed"
    assert results["score"] == pytest.approx(20 * 7 / 10)
    assert "tell the instructor" not in json.dumps(results)
    assert str(root) not in json.dumps(results) and "/source/" not in json.dumps(results)
    assert "Practice games" in json.dumps(results) and "could not play" not in json.dumps(results)


def test_an_upload_of_several_files_is_the_agents_bundle(tmp_path, bundle, bwrap):
    """Gradescope puts every uploaded file (or a zip's contents) in submission/: the agent's
    file with its data and helper module plays as one bundle, helpers no agents."""
    from test_bundles import python_bundle

    files = python_bundle(tmp_path / "upload")
    results = run_autograder(gradescope_layout(tmp_path, bundle, sorted(files.iterdir())))
    assert all(test["status"] == "passed" for test in results["tests"]), results
    assert results["score"] == 20
    practice = by_name(results)["Practice games against built-in agents (not graded)"]
    assert "vs cooperate" in practice["output"]
    assert "bundles" not in json.dumps(results)   # no path of the monitor's own

def test_the_bundle_installs_and_grades_with_the_declared_agent_packages(tmp_path, bwrap):
    """--agent-package: setup.sh installs it (pinned to the version here) and the image's
    run holds agents to it, as validate and the tournament do; without it, the same upload
    fails its Loads check with the line saying how to declare it."""
    from importlib import metadata

    upload = tmp_path / "KhosmoodLevinson.py"
    upload.write_text("import click\n\n\ndef KhosmoodLevinson(hist, score):\n"
                      "    return ['C', 'C', 'C']\n")
    loads = "Loads"
    graded = {}
    for declared in (True, False):
        folder = tmp_path / f"bundle-{declared}" / "autograder"
        status, _out, err = run_cli("autograder", folder, "--timeout", "5",
                                    *(["--agent-package", "click"] if declared else []))
        assert status == 0, err
        setup = (folder / "setup.sh").read_text()
        pinned = f"'click=={metadata.version('click')}'"
        assert (setup.count(pinned) == 2) == declared   # the harness's own, and the agents'
        root = gradescope_layout(tmp_path / f"run-{declared}", folder, [upload])
        graded[declared] = by_name(run_autograder(root))[loads]
    assert graded[True]["status"] == "passed", graded[True]["output"]
    assert graded[False]["status"] == "failed"
    assert 'agent-packages = ["click"]' in graded[False]["output"]
