"""A bare agent name plays the agent file of that name in the current folder first, then
the one where names are looked up (the bundled agents by default), in every command and
the Python and Hy monitor alike, and every result says the path that played."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import AGENTS, ROOT, pdharness as run_console

pytestmark = pytest.mark.slow   # the console script, Hy and the API, several times

FORM = "(monitor '(.25 .1) '(5 9) '(#'random #'titfortat #'KhosmoodLevinson))"
MINE = "def KhosmoodLevinson(hist, score):\n    return ['D', 'D', 'D']\n"   # not the bundled


def pdharness(*args, cwd, status=0):
    done = run_console(*args, cwd=cwd, status=status)
    return done.stdout, done.stderr


@pytest.fixture
def course(tmp_path):
    (tmp_path / "KhosmoodLevinson.py").write_text(MINE)
    return tmp_path


def test_monitor_plays_the_current_folders_file_and_says_so(course):
    out, err = pdharness("monitor", FORM, "--seed", "4", "--isolation", "none", cwd=course)
    assert "note: KhosmoodLevinson is the agent file KhosmoodLevinson.py" in err
    same, _err = pdharness("tournament", "KhosmoodLevinson.py", "random", "titfortat",
                           "--flip", "0.25", "0.1", "--length", "5", "9", "--seed", "4",
                           "--isolation", "none", "--format", "lisp", cwd=course)
    assert out.strip() == same.strip()
    bundled, err = pdharness("monitor", FORM, "--seed", "4", "--isolation", "none",
                             cwd=course / "..")
    assert bundled.strip() != out.strip()
    # the bundled agents: the checkout's, or the installed package's (CI installs it)
    assert re.search(r"KhosmoodLevinson is the agent file \S*/student_agents/KhosmoodLevinson\.",
                     err), err


def test_tournament_and_play_take_the_bare_name_too(course):
    out, err = pdharness("tournament", "KhosmoodLevinson", "titfortat", "--seed", "4",
                         "--length", "5", "5", "--isolation", "none", "--format", "json",
                         cwd=course)
    assert '"source": "KhosmoodLevinson.py"' in out
    assert "KhosmoodLevinson is the agent file KhosmoodLevinson.py" in err
    out, err = pdharness("play", "KhosmoodLevinson", "titfortat", "--turns", "2",
                         "--isolation", "none", cwd=course)
    assert "KhosmoodLevinson is the agent file KhosmoodLevinson.py" in err


def test_a_renamed_upload_in_the_folder_answers_to_its_agents_name(tmp_path):
    (tmp_path / "KhosmoodLevinson (1).py").write_text(MINE)
    out, err = pdharness("monitor", FORM, "--seed", "4", "--isolation", "none", cwd=tmp_path)
    assert "KhosmoodLevinson is the agent file KhosmoodLevinson (1).py" in err


def test_the_python_and_hy_monitor_look_in_the_current_folder_first(course, monkeypatch,
                                                                     capsys):
    import harness

    monkeypatch.chdir(course)
    mine = harness.monitor((0.25, 0.1), (10, 50), ["titfortat", "random",
                                                    "KhosmoodLevinson"], seed=4,
                           isolation="none", jobs=1)
    assert mine.sources == {"KhosmoodLevinson": "KhosmoodLevinson.py"}
    assert "note: KhosmoodLevinson is the agent file KhosmoodLevinson.py" in \
        capsys.readouterr().err
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "hy",
                           str(AGENTS / "hy" / "scripts" / "original_call.hy")],
                          capture_output=True, text=True, env=env, timeout=300, cwd=course)
    assert done.returncode == 0, done.stderr
    # the script runs under the sandbox (the API's default): the same games
    assert done.stdout.strip() == "(" + " ".join(f"({n} {s})" for n, s in mine) + ")"
    assert "KhosmoodLevinson is the agent file KhosmoodLevinson.py" in done.stderr
