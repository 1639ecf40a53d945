"""harness.monitor, the Python form of the original call."""
import pytest

import harness
from harness.core.errors import HarnessError

from conftest import AGENTS, IN_CI


def always_defect(hist, score):
    return ["D", "D", "D"]


def test_monitor_takes_names_paths_and_functions_and_answers_best_first():
    result = harness.monitor((0.25, 0.1), [10, 50],
                             ["titfortat", AGENTS / "core" / "Gambler.py", always_defect],
                             seed=4, isolation="none")
    assert sorted(name for name, _ in result) == ["Gambler", "always_defect", "titfortat"]
    assert result.seed == 4
    assert result == [(s.agent, s.score) for s in result.result.standings]
    scores = {name: score for name, score in result}
    assert all(isinstance(score, int) for score in scores.values())


def test_same_seed_same_answer_and_names_found_in_the_agents_folder():
    folder = AGENTS / "core"
    first = harness.monitor((.25, .1), (10, 20), ["Gambler", "random"], seed=9,
                            agents_dir=folder, isolation="process")
    second = harness.monitor((.25, .1), (10, 20), ["gambler", "random"], seed=9,
                             agents_dir=folder, isolation="none")
    assert first == second


@pytest.mark.parametrize("flip,length,agents,needle", [
    ((0.25,), (10, 50), ["random", "defect"], "flip_params"),
    ((0.25, 0.1), (50, 10), ["random", "defect"], "greater than maximum"),
    ((0.25, 0.1), (10, 50), ["random", 42], "not an agent"),
    ((0.25, 0.1), (10, 50), ["nosuch"], "unknown agent"),
])
def test_bad_arguments_are_clear_errors(flip, length, agents, needle):
    with pytest.raises(HarnessError, match=needle):
        harness.monitor(flip, length, agents, seed=1, isolation="none")


def test_agent_files_run_in_the_sandbox_by_default_as_on_the_command_line(bwrap):
    from harness.isolation import sandbox

    if sandbox.support().flavor is None:
        if IN_CI:
            pytest.fail(f"no sandbox in CI: {sandbox.support().reason}", pytrace=False)
        pytest.skip(sandbox.support().reason)
    seeker = AGENTS / "hostile" / "PasswdSeeker.py"
    # no flips, 3 turns of 3 moves: defecting against cooperate scores 45, cooperating 27
    result = harness.monitor((0, 0), (3, 3), [seeker, "cooperate"], seed=1)
    assert dict(result)["PasswdSeeker"] == 45      # it could not see /etc/passwd
    plain = harness.monitor((0, 0), (3, 3), [seeker, "cooperate"], seed=1,
                            isolation="process")
    assert dict(plain)["PasswdSeeker"] == 27


def test_without_the_sandbox_the_api_says_so_once_and_runs_agents_as_processes(tmp_path):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    seeker = AGENTS / "hostile" / "PasswdSeeker.py"
    program = ("import harness; r = harness.monitor((0, 0), (3, 3), "
               f"[{str(seeker)!r}, 'cooperate', 'defect'], seed=1, jobs=2); print(dict(r))")
    env = dict(os.environ, PATH=str(tmp_path), PYTHONPATH=str(ROOT))  # no bwrap on PATH
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "no sandbox" in warnings[0]
    assert "'PasswdSeeker'" in done.stdout
