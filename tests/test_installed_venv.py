"""Installed the way the README says (a virtual environment made from the machine's own
python3, `pip install .` into it), Hy agents and agents importing a library installed only
in that venv load and play, in the sandbox and in a process of their own.

Agent hosts start with -S; in a venv made from Debian's python3, -S leaves the interpreter
knowing only the base interpreter's site folders, where neither Hy nor the agent's library
is. The monitor tells its hosts its own (harness/agents/lang/python_process.py site_folders).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT

pytestmark = pytest.mark.slow  # a venv and a pip install: tens of seconds

# what the agents import: installed in the venv only, never in the base interpreter
LIBRARY = "venv_only_answers"
DISTRIBUTION = "venv-only-answers"
PYTHON_AGENT = f"""import {LIBRARY}


def VenvPython(hist, score):
    return {LIBRARY}.ANSWER
"""
HY_AGENT = f"""(import {LIBRARY})

(defn VenvHy [hist score]
  {LIBRARY}.ANSWER)
"""


def _base_python() -> str:
    """The machine's own python3 (Debian's, as the README's Debian route uses), else the
    interpreter this suite runs on, beneath any venv."""
    if os.path.exists("/usr/bin/python3"):
        return "/usr/bin/python3"
    return getattr(sys, "_base_executable", sys.executable)


def _run(*command, **options) -> subprocess.CompletedProcess:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=900, **options)
    assert done.returncode == 0, f"{command}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A venv from the base python3 with pdharness installed (from a copy of this tree, so
    the build writes nothing here) and LIBRARY in its site-packages."""
    base = _base_python()
    if subprocess.run([base, "-c", "import venv, ensurepip"], capture_output=True).returncode:
        message = f"{base} cannot make a venv with pip (apt-get install python3-venv)"
        if IN_CI:
            pytest.fail(message + " - CI must install it", pytrace=False)
        pytest.skip(message)
    where = tmp_path_factory.mktemp("installed")
    source = where / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", ".hypothesis", "tests"))
    _run(base, "-m", "venv", where / "v")
    python = where / "v" / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", source)
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    (Path(site.stdout.strip()) / f"{LIBRARY}.py").write_text('ANSWER = ["C", "D", "C"]\n')
    # a distribution as pip lays it out: agents import only declared ones (--agent-package)
    info = Path(site.stdout.strip()) / f"{LIBRARY}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: 1.0\n")
    (info / "top_level.txt").write_text(f"{LIBRARY}\n")
    (info / "RECORD").write_text(f"{LIBRARY}.py,,\n{info.name}/METADATA,,\n")
    return where / "v"


def test_the_base_interpreter_has_neither_hy_nor_the_library(venv):
    """What makes the next test mean something: only the venv has them."""
    for module in (LIBRARY, "hy"):
        if module == "hy" and not os.path.exists("/usr/bin/python3") and not IN_CI:
            continue  # a laptop's own Python may well have Hy
        found = subprocess.run([_base_python(), "-c", f"import {module}"], capture_output=True)
        assert found.returncode != 0, f"{module} is importable outside the venv"


def test_every_data_file_of_the_packages_is_installed(venv):
    """What `pip install .` lays out holds every file the packages read besides their
    modules (templates, framings, the Axelrod catalogue, the Lisp hosts, the bundled
    agents): setup.cfg's package_data is easy to get wrong (a pattern list over two lines
    is split by line, not comma) and an editable install would never show it."""
    site = Path(_run(venv / "bin" / "python", "-c",
                     "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    data = [path.relative_to(ROOT) for package in ("harness", "lisp_bridge", "student_agents")
            for path in sorted((ROOT / package).rglob("*"))
            if path.is_file() and path.suffix not in (".py", ".pyc")
            and "__pycache__" not in path.parts]
    assert len(data) >= 20
    assert [str(path) for path in data if not (site / path).is_file()] == []


@pytest.mark.parametrize("isolation", ["sandbox", "process"])
def test_hy_and_a_venv_only_library_load_and_play_from_a_venv(venv, isolation, tmp_path,
                                                               request):
    if isolation == "sandbox":
        request.getfixturevalue("sandboxed")
    (tmp_path / "VenvPython.py").write_text(PYTHON_AGENT)
    (tmp_path / "VenvHy.hy").write_text(HY_AGENT)
    done = _run(venv / "bin" / "pdharness", "tournament", "VenvPython.py", "VenvHy.hy",
                "titfortat", "--isolation", isolation, "--length", "3", "3", "--seed", "7",
                "--format", "json", "--jobs", "1", "--agent-package", DISTRIBUTION,
                cwd=tmp_path)
    result = json.loads(done.stdout)
    assert {agent["name"]: agent["status"] for agent in result["agents"]} == {
        "VenvPython": "ok", "VenvHy": "ok", "titfortat": "ok"}
    assert all(game["faults"] == {"a": 0, "b": 0} for game in result["games"]), result["games"]


def test_without_hy_a_hy_agents_load_error_blames_the_installation(tmp_path):
    """pdharness installed without Hy (`--no-deps`, then all but Hy): the Hy agent cannot
    load, and the message says it is the installation's doing, not the student's."""
    base = _base_python()
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", ".hypothesis", "tests"))
    _run(base, "-m", "venv", tmp_path / "v")
    python = tmp_path / "v" / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
         source, "click", "Jinja2")
    (tmp_path / "VenvHy.hy").write_text('(defn VenvHy [hist score] ["C" "C" "C"])\n')
    done = _run(tmp_path / "v" / "bin" / "pdharness", "tournament", "VenvHy.hy", "titfortat",
                "--isolation", "process", "--length", "2", "2", "--seed", "1", "--format",
                "json", cwd=tmp_path)
    [agent] = [a for a in json.loads(done.stdout)["agents"] if a["name"] == "VenvHy"]
    assert agent["status"] == "disqualified"   # does not load: out before round 1
    # the Hy language says it cannot run here (Language.can_run): the runtime missing for
    # this interpreter, and the fix, nothing about the student's file
    assert "hy and hyrule are not installed for" in agent["message"]
    assert str(python) in agent["message"] and "pip install hy hyrule" in agent["message"]
