"""Loading an agent's file (its module body; a Lisp file's load) has its own limit,
--load-timeout, apart from the calls' --timeout: at the host's start (LOADING to READY)
and in every game (GAME to LOADED, the first TURN sent only then), in every language."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import console_script

pytestmark = pytest.mark.slow   # real hosts, SBCL, the sandbox

SLEEPING = {   # a file whose top level sleeps SECONDS, then defines a cooperating agent
    "py": ("AdamsBrown", "import time\n\ntime.sleep({seconds})\n\n\n"
                         "def AdamsBrown(hist, score):\n    return ['C', 'C', 'C']\n"),
    "hy": ("BrownChen", "(import time)\n(time.sleep {seconds})\n\n"
                        '(defn BrownChen [hist score] ["C" "C" "C"])\n'),
    "lisp": ("ChenDiaz", "(sleep {seconds})\n\n(defun ChenDiaz (hist score)\n"
                         "  (declare (ignore hist score))\n  (list 'C 'C 'C))\n"),
}
LANGUAGES = list(SLEEPING)
MODES = ["sandbox", "process"]


def _write(folder, language, seconds) -> str:
    name, text = SLEEPING[language]
    (folder / f"{name}.{language}").write_text(text.format(seconds=seconds))
    return f"{name}.{language}"


def _needs(request, language, isolation) -> None:
    if language == "lisp":
        request.getfixturevalue("sbcl")
    if isolation == "sandbox":
        request.getfixturevalue("sandboxed")


def _run(folder, *arguments) -> subprocess.CompletedProcess:
    return subprocess.run([console_script(), *arguments], cwd=folder, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_load_past_the_load_timeout_is_a_load_error_saying_so(language, isolation,
                                                                tmp_path, request):
    _needs(request, language, isolation)
    file = _write(tmp_path, language, 4)
    done = _run(tmp_path, "validate", "--format", "json", "--isolation", isolation,
                "--load-timeout", "1", file)
    [verdict] = json.loads(done.stdout)
    assert [problem["code"] for problem in verdict["problems"]] == ["load-error"], verdict
    message = verdict["problems"][0]["message"]
    assert "did not load within the 1 s allowed (--load-timeout): stopped after 1." in message
    done = _run(tmp_path, "tournament", "--format", "json", "--isolation", isolation,
                "--load-timeout", "1", "--seed", "2", "--length", "2", "2", file, "defect")
    assert done.returncode == 0, done.stderr
    statuses = {a["name"]: (a["status"], a["message"]) for a in json.loads(done.stdout)["agents"]}
    assert statuses[SLEEPING[language][0]][0] == "disqualified"   # before round 1
    assert "--load-timeout" in statuses[SLEEPING[language][0]][1]


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_slow_top_level_is_the_loads_time_not_the_first_calls(language, isolation,
                                                               tmp_path, request):
    """1.5 s at the top of the file, a 1 s call limit: every game loads the file afresh,
    and none of it counts against its first call."""
    _needs(request, language, isolation)
    file = _write(tmp_path, language, 1.5)
    done = _run(tmp_path, "validate", "--format", "json", "--isolation", isolation,
                "--timeout", "1", file)
    [verdict] = json.loads(done.stdout)
    assert verdict["ok"] and verdict["problems"] == [], verdict
    done = _run(tmp_path, "tournament", "--format", "json", "--isolation", isolation,
                "--timeout", "1", "--seed", "2", "--length", "2", "2", file, "defect",
                "cooperate")
    result = json.loads(done.stdout)
    assert all(game["faults"] == {"a": 0, "b": 0} for game in result["games"]), result["games"]


def test_in_the_monitor_a_load_past_the_limit_is_a_load_error_with_its_time(tmp_path):
    """`--isolation none` cannot stop a load: once it returns, it is refused all the same."""
    file = _write(tmp_path, "py", 1.5)
    done = _run(tmp_path, "validate", "--format", "json", "--isolation", "none",
                "--load-timeout", "0.5", file)
    [verdict] = json.loads(done.stdout)
    [problem] = verdict["problems"]
    assert problem["code"] == "load-error"
    assert "did not load within the 0.5 s allowed (--load-timeout): it took 1." in \
        problem["message"]


def test_a_course_file_may_lower_the_load_timeout_but_one_found_here_not_raise_it(tmp_path):
    file = _write(tmp_path, "py", 0)
    (tmp_path / "pdharness.toml").write_text("load-timeout = 60\n")
    done = _run(tmp_path, "validate", file)
    assert done.returncode == 2
    assert "load-timeout = 60" in done.stderr and "--config" in done.stderr
    (tmp_path / "pdharness.toml").write_text("load-timeout = 2\n")
    done = _run(tmp_path, "validate", "--isolation", "none", file)
    assert done.returncode == 0, done.stderr


GAME_ONLY_SLOW = """import random
import time

# the first load (seeded 0, at the host's start) is quick; each game's (its own seed) is not
if random.random() != 0.8444218515250481:
    time.sleep(5)


def EvansFischer(hist, score):
    return ["C", "C", "C"]
"""


@pytest.mark.parametrize("isolation", MODES)
def test_a_games_load_past_the_limit_is_a_timeout_saying_so(isolation, tmp_path, request):
    """In a game the load's limit holds too: the game's first call is asked only once its
    agent has loaded, and a load past --load-timeout is that call's timeout, named."""
    _needs(request, "py", isolation)
    (tmp_path / "EvansFischer.py").write_text(GAME_ONLY_SLOW)
    done = _run(tmp_path, "validate", "--format", "json", "--isolation", isolation,
                "--load-timeout", "1", "EvansFischer.py")
    [verdict] = json.loads(done.stdout)
    assert [problem["code"] for problem in verdict["problems"]] == ["timeout"], verdict
    assert "did not load within 1 s (--load-timeout)" in verdict["problems"][0]["message"]
