"""The monitor called from real Hy scripts, as students call it."""
import os
import subprocess
import sys

import hy
import pytest

import harness
from harness.core.errors import HarnessError

from conftest import AGENTS, ROOT

SCRIPTS = AGENTS / "hy" / "scripts"


def run_hy(script, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "hy", str(SCRIPTS / script), *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    return done.returncode, done.stdout.splitlines(), done.stderr


def lisp_list(pairs):
    return "(" + " ".join(f"({name} {score})" for name, score in pairs) + ")"


def test_the_original_call_runs_from_hy_and_prints_a_lisp_list():
    status, lines, err = run_hy("original_call.hy")
    assert status == 0, err
    same = harness.monitor((0.25, 0.1), (10, 50), ["titfortat", "random", "KhosmoodLevinson"],
                           seed=4)
    assert lines == [lisp_list(same)]
    assert sorted(name for name, _ in same) == ["KhosmoodLevinson", "random", "titfortat"]


def test_the_call_word_for_word_with_the_preludes_function_quote():
    status, lines, err = run_hy("function_quote.hy")
    assert status == 0, err
    same = harness.monitor((0.25, 0.1), (10, 50), ["titfortat", "random", "KhosmoodLevinson"],
                           seed=4)
    assert lines == [lisp_list(same), "['C 'C 'C]"]  # #'Mine outside a quote: the function


def test_hy_functions_paths_strings_and_keywords_work_and_functions_see_hy_moves():
    status, lines, err = run_hy("hy_values.hy", ROOT / "student_agents")
    assert status == 0, err
    printed, checks = lines
    assert checks == "True 0"  # every move Mirror saw was a Hy move, and no agent faulted
    names = [pair.split()[0] for pair in printed[2:-2].split(") (")]
    assert sorted(names) == ["GarciaHoffman", "KimLopez", "Mirror", "defect"]


def test_quoted_hy_data_reaches_the_monitor_as_plain_values():
    flip, length, agents = hy.eval(hy.read("['(.25 .1) '(3 4) '(cooperate \"defect\")]"))
    result = harness.monitor(flip, length, agents, seed=9, isolation="none", jobs=1)
    assert result == harness.monitor((0.25, 0.1), (3, 4), ["cooperate", "defect"], seed=9,
                                     isolation="none", jobs=1)
    assert hy.repr(result) == lisp_list(result)


def test_a_malformed_hy_parameter_is_named_plainly():
    with pytest.raises(HarnessError, match=r"must be a pair of numbers, not \[0\.25\]"):
        harness.monitor(hy.eval(hy.read("'(.25)")), (10, 50), ["titfortat", "defect"])
