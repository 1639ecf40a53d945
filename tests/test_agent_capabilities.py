"""Under a root monitor, `process` agents keep root's right to read (CAP_DAC_READ_SEARCH)
only when their own user could not run their host otherwise: installed the way
docs/security.md says, a venv made from /usr/bin/python3 in a folder every user can read, the
hosts keep no capability at all, and a hostile agent in each language cannot read a file
only root may; with the interpreter behind a folder other users cannot enter (as pyenv's
under /root), or a language's cache there, they keep it, as before, and the monitor says
so once on stderr. Decided by trying, as the agent's user (harness/isolation/agent_user.py).

Requires a root monitor (CI runs as root), /usr/bin/python3 with venv and pip (CI's
Debian has them) and SBCL.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import AGENTS, IN_CI, ROOT

pytestmark = pytest.mark.slow  # a venv, a pip install, agent hosts

CAPABILITIES = AGENTS / "capabilities"
NOTE = "CAP_DAC_READ_SEARCH"
LANGUAGES = [pytest.param("SecretReader.py", id="python"),
             pytest.param("HySecretReader.hy", id="hy"),
             pytest.param("LispSecretReader.lisp", id="lisp")]


def _run(*command, **options) -> subprocess.CompletedProcess:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=900, **options)
    assert done.returncode == 0, f"{command}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed():
    """A folder every user can read, under /var/tmp (pytest's own folders are root's
    alone), holding: `v`, a venv from /usr/bin/python3 with pdharness installed; `secret`,
    root's, mode 0600; `agents`, the hostile agents pointed at it; `cache`, the harness
    cache."""
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("CI runs the suite as root", pytrace=False)
        pytest.skip("needs a root monitor")
    base = "/usr/bin/python3"
    if not os.path.exists(base) or subprocess.run(
            [base, "-c", "import venv, ensurepip"], capture_output=True).returncode:
        if IN_CI:
            pytest.fail(f"{base} cannot make a venv with pip here", pytrace=False)
        pytest.skip(f"{base} cannot make a venv with pip (apt-get install python3-venv)")
    folder = Path(tempfile.mkdtemp(prefix="pdharness-caps-", dir="/var/tmp"))
    try:
        folder.chmod(0o755)
        shutil.copytree(ROOT, folder / "source", ignore=shutil.ignore_patterns(
            ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".pytest_cache",
            ".mypy_cache", ".ruff_cache", ".hypothesis", "tests"))
        _run(base, "-m", "venv", folder / "v")
        _run(folder / "v" / "bin" / "python", "-m", "pip", "install", "-q",
             "--disable-pip-version-check", folder / "source")
        secret = folder / "secret"
        secret.write_text("the instructor's\n")
        secret.chmod(0o600)
        (folder / "agents").mkdir(mode=0o755)
        for agent in CAPABILITIES.iterdir():
            text = agent.read_text().replace('SECRET = ""', f"SECRET = {str(secret)!r}") \
                .replace('(setv SECRET "")', f'(setv SECRET "{secret}")') \
                .replace('*lispsecretreader-secret* ""', f'*lispsecretreader-secret* "{secret}"')
            (folder / "agents" / agent.name).write_text(text)
        (folder / "cache").mkdir(mode=0o755)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def play(installed: Path, agent: str, cache: Path) -> tuple[set[str], str]:
    """A short game of `agent` under process isolation, by the venv's console script: (what
    the agent intended each turn, the monitor's stderr)."""
    done = _run(installed / "v" / "bin" / "pdharness", "play", agent, "titfortat",
                "--isolation", "process", "--turns", "2", "--seed", "1", "--format", "json",
                cwd=installed / "agents", env=dict(os.environ, PDHARNESS_CACHE=str(cache)))
    turns = json.loads(done.stdout)["turns"]
    assert all(turn["faults"]["a"] is None for turn in turns), [t["faults"] for t in turns]
    return {"".join(turn["a"]["intended"]) for turn in turns}, done.stderr


@pytest.mark.parametrize("agent", LANGUAGES)
def test_from_a_readable_venv_agents_keep_no_capability(installed, sbcl, agent):
    moves, err = play(installed, agent, installed / "cache")
    assert moves == {"CCC"}          # it could not read root's file, and is not root
    assert NOTE not in err


def test_behind_a_folder_only_root_enters_agents_keep_the_right_and_it_is_said(installed):
    """As pyenv's interpreter under /root (0700): the host could not even start as the
    agent's user, so it keeps CAP_DAC_READ_SEARCH and reads root's file, as before."""
    installed.chmod(0o700)
    try:
        moves, err = play(installed, "SecretReader.py", installed / "cache")
    finally:
        installed.chmod(0o755)
    assert moves == {"DDC"}          # read the file, holds a capability, is not root
    [note] = [line for line in err.splitlines() if NOTE in line]
    assert "/usr/bin/python3 -m venv" in note and str(installed / "v") in note
    assert err.count(NOTE) == 1


def test_the_choice_is_per_language_and_the_note_is_said_once(installed, sbcl, tmp_path):
    """A cache only root may read (pytest's own folder here, ~/.cache under /root in real
    life) keeps the right for the languages whose host reads the cache, not for Python."""
    private = tmp_path / "cache"     # inside pytest's folder: root's alone
    done = _run(installed / "v" / "bin" / "pdharness", "tournament", "SecretReader.py",
                "HySecretReader.hy", "LispSecretReader.lisp", "titfortat", "--isolation",
                "process", "--length", "1", "1", "--seed", "1", "--db", tmp_path / "run.sqlite",
                "--quiet", cwd=installed / "agents",
                env=dict(os.environ, PDHARNESS_CACHE=str(private)))
    assert done.stderr.count(NOTE) == 1 and str(private) in done.stderr
    import sqlite3

    with sqlite3.connect(tmp_path / "run.sqlite") as connection:
        rows = connection.execute(   # each turn's first move: D when it read the secret
            "SELECT a, b, intended_a, intended_b FROM game JOIN move ON move.game = game.id "
            "WHERE idx = (SELECT min(idx) FROM move)").fetchall()
    first: dict[str, set[str]] = {}
    for a, b, move_a, move_b in rows:
        first.setdefault(a, set()).add(move_a)
        first.setdefault(b, set()).add(move_b)
    assert first["SecretReader"] == {"C"}
    assert first["HySecretReader"] == first["LispSecretReader"] == {"D"}
