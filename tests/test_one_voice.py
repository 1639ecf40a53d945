"""One voice across commands: the same bad path, broken link or duplicate name gets the same
words from tournament, play, validate and monitor; monitor says where it looked and what the
form overrides; colour only on a terminal without NO_COLOR; click's shell completion."""
from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

GOOD = "def KhosmoodLevinson(hist, score):\n    return ['C', 'C', 'C']\n"


def error_of(*args, cwd=None) -> str:
    status, _out, err = run_cli(*args, cwd=cwd)
    assert status == 2, err
    lines = [line for line in err.splitlines() if line.startswith("pdharness: error: ")]
    assert len(lines) == 1, err
    return lines[0][len("pdharness: error: "):]


@pytest.fixture
def course(tmp_path):
    (tmp_path / "Lost.py").symlink_to(tmp_path / "gone" / "Lost.py")
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "KhosmoodLevinson.py").write_text(GOOD)
    (folder / "Stray.py").symlink_to(tmp_path / "gone" / "Stray.py")
    return tmp_path


@pytest.mark.parametrize("argument, says", [
    ("missing/ChenDiaz.py", "missing/ChenDiaz.py: no such file or folder"),
    ("Lost.py", "Lost.py: a broken symbolic link (to "),
])
def test_a_bad_path_gets_the_same_words_from_every_command(course, argument, says):
    messages = [error_of("tournament", argument, "titfortat", cwd=course),
                error_of("play", argument, "titfortat", cwd=course),
                error_of("validate", argument, cwd=course)]
    assert all(message.startswith(says) for message in messages), messages
    assert len(set(messages)) == 1, messages


def test_a_broken_link_in_a_folder_is_a_load_error_in_tournament_and_validate(course):
    status, out, err = run_cli("tournament", "subs", "titfortat", "--length", "2", "2",
                               "--seed", "1", "--isolation", "process", cwd=course)
    assert status == 0, err
    problem = next(line for line in out.splitlines() if line.strip().startswith("Stray:"))
    status, out, _err = run_cli("validate", "subs", "--isolation", "process", cwd=course)
    assert status == 1
    reason = "subs/Stray.py: a broken symbolic link (to "
    assert reason in problem and f"load-error: {reason}" in out


def test_a_name_three_files_share_names_all_three(tmp_path):
    for suffix, text in ((".py", GOOD), (".hy", '(defn KhosmoodLevinson [h s] ["C" "C" "C"])'),
                         (".lisp", "(defun KhosmoodLevinson (h s) (list 'C 'C 'C))")):
        (tmp_path / f"KhosmoodLevinson{suffix}").write_text(text)
    message = error_of("tournament", tmp_path)
    assert message.startswith("three agents named KhosmoodLevinson: ")
    assert all(f"KhosmoodLevinson{suffix}" in message for suffix in (".py", ".hy", ".lisp"))


def test_monitor_says_where_it_looked_and_what_the_form_replaces(course):
    message = error_of("monitor", "(monitor '(.25 .1) '(10 50) '(#'titfortat #'Foo))",
                       "--agents", "subs", cwd=course)
    assert message.startswith("unknown agent 'Foo': no file or folder of that name, nor a "
                              "built-in agent, nor an agent file in subs")
    status, out, err = run_cli("monitor", "(monitor '(.25 .1) '(3 3) '(#'titfortat "
                               "#'KhosmoodLevinson))", "--agents", "subs", "--flip", "0", "0",
                               "--seed", "1", "--isolation", "none", cwd=course)
    assert status == 0, err
    assert "--flip is replaced by the form's flipParams (0.25 0.1)" in err
    assert "--length" not in err


def on_terminal(args, env_extra=None) -> str:
    controller, terminal = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NO_COLOR", None)
    env.update(env_extra or {})
    process = subprocess.Popen([sys.executable, "-m", "harness", *args], stdout=terminal,
                               stderr=terminal, env=env)
    os.close(terminal)
    seen = bytearray()
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen.extend(chunk)
    process.wait(timeout=300)
    os.close(controller)
    return seen.decode("utf-8", "replace")


def test_colour_on_a_terminal_only_and_never_with_no_color(tmp_path):
    (tmp_path / "KhosmoodLevinson.py").write_text(GOOD)
    (tmp_path / "chen_diaz.py").write_text(GOOD.replace("KhosmoodLevinson", "chen_diaz"))
    args = ["validate", str(tmp_path), "--isolation", "process", "--timeout", "10"]
    shown = on_terminal(args)
    assert "\x1b[32mok  \x1b[0m" in shown and "\x1b[31m\x1b[1mFAIL\x1b[0m" in shown
    assert "\x1b[" not in on_terminal(args, {"NO_COLOR": "1"})
    status, out, _err = run_cli(*args)
    assert "\x1b[" not in out and out.startswith(("ok  ", "FAIL"))
    assert "\x1b[31m" in on_terminal(["tournament", str(tmp_path / "none.py")])


def test_click_shell_completion_completes_commands_and_built_in_agents():
    env = dict(os.environ, PYTHONPATH=str(ROOT), _PDHARNESS_COMPLETE="bash_complete",
               COMP_WORDS="pdharness play titfor", COMP_CWORD="2")
    done = subprocess.run([sys.executable, "-m", "harness"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert "plain,titfortat" in done.stdout.splitlines()
    env.update(COMP_WORDS="pdharness autog", COMP_CWORD="1")
    done = subprocess.run([sys.executable, "-m", "harness"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.splitlines() == ["plain,autograder"]


def test_an_agent_named_without_its_suffix_plays_its_file_and_says_which(tmp_path):
    """A bare name plays the current folder's agent file of that name, in every
    command alike, and says which file that is."""
    (tmp_path / "KhosmoodLevinson.py").write_text(GOOD)
    for name in ("KhosmoodLevinson", "khosmoodlevinson"):
        status, _out, err = run_cli("play", name, "titfortat", "--turns", "1",
                                    "--isolation", "none", cwd=tmp_path)
        assert status == 0, err
        assert f"note: {name} is the agent file KhosmoodLevinson.py" in err
    assert "; did you mean titfortat? (built-ins: " in error_of("play", "titfortatt",
                                                                 "defect", cwd=tmp_path)


def test_every_agent_file_of_the_name_is_suggested_not_just_the_first(tmp_path):
    """A student with the same agent in Python and Common Lisp is shown both files, not
    one picked by sort order."""
    (tmp_path / "KhosmoodLevinson.py").write_text(GOOD)
    (tmp_path / "KhosmoodLevinson.lisp").write_text("(defun KhosmoodLevinson (h s) '(C C C))")
    message = error_of("play", "KhosmoodLevinson", "titfortat", cwd=tmp_path)
    assert "did you mean the agent file KhosmoodLevinson.lisp or KhosmoodLevinson.py?" in (
        message)


def test_a_tournament_of_a_folder_of_team_folders_says_to_name_them(tmp_path):
    (tmp_path / "course" / "team1").mkdir(parents=True)
    (tmp_path / "course" / "team1" / "KhosmoodLevinson.py").write_text(GOOD)
    message = error_of("tournament", "course", cwd=tmp_path)
    assert message == ("course: folder holds no agent files (.py, .hy, .lisp); its subfolders "
                       "hold some: name them, e.g. course/*/")
    (tmp_path / "empty").mkdir()
    assert error_of("tournament", "empty", cwd=tmp_path) == (
        "empty: folder holds no agent files (.py, .hy, .lisp)")


def test_validate_of_a_folder_of_team_folders_suggests_recursive(tmp_path):
    (tmp_path / "course" / "team1").mkdir(parents=True)
    (tmp_path / "course" / "team1" / "KhosmoodLevinson.py").write_text(GOOD)
    message = error_of("validate", "course", cwd=tmp_path)
    assert message.endswith("in course; its subfolders hold some: add --recursive (-r) to "
                            "look inside them")
    (tmp_path / "empty").mkdir()
    assert error_of("validate", "empty", cwd=tmp_path).endswith("in empty")
