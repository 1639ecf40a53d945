"""The real console script, as users run it."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)


def test_the_console_script_runs_a_tournament_of_the_bundled_agents(tmp_path):
    # the one installed with this Python (a venv's, not necessarily on PATH), else PATH's
    beside = Path(sys.executable).parent / "pdharness"
    script = str(beside) if beside.exists() else shutil.which("pdharness")
    if script is None:
        if IN_CI:
            pytest.fail("pdharness is not installed: CI installs the package")
        pytest.skip("pdharness not installed (pip install .)")
    done = subprocess.run([script, "tournament", "--seed", "5", "--format", "json",
                           "--isolation", "process"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["seed"] == 5
    bundled = {p.stem for p in (ROOT / "student_agents").iterdir()
               if p.suffix in (".py", ".hy", ".lisp") and not p.name.startswith("_")}
    assert {a["name"] for a in result["agents"]} == bundled
    assert result["standings"][0]["rank"] == 1


def test_the_table_prints_the_seed_and_a_winner():
    status, out, err = run_cli("tournament", "titfortat", "defect", "--seed", "9",
                               "--isolation", "none")
    assert status == 0, err
    assert "seed 9" in out
    assert "winner" in out


def test_json_has_the_contracts_shape():
    status, out, _ = run_cli("tournament", "titfortat", "defect", "random", "--seed", "2",
                             "--format", "json", "--isolation", "none")
    result = json.loads(out)
    assert set(result) >= {"seed", "params", "agents", "rounds", "games", "standings"}
    assert set(result["params"]) >= {"flip", "length", "moves_per_turn", "decay", "timeout"}
    game = result["games"][0]
    assert game["a"] < game["b"] and set(game["faults"]) == {"a", "b"}
    standing = result["standings"][0]
    assert set(standing["faults"]) == {"invalid", "exception", "timeout", "crash"}
    assert result["agents"][0]["status"] == "ok"


def test_lisp_and_csv_formats():
    status, out, err = run_cli("tournament", "titfortat", "defect", "cooperate", "--seed", "2",
                               "--format", "lisp", "--isolation", "none")
    assert status == 0
    assert out.startswith("((") and out.strip().endswith("))")
    assert "seed 2" in err
    status, out, _ = run_cli("tournament", "titfortat", "defect", "--seed", "2",
                             "--format", "csv", "--isolation", "none")
    header, *rows = out.strip().splitlines()
    assert header.startswith("rank,agent,score,dropped_in,faults_invalid")
    assert len(rows) == 2


@pytest.mark.parametrize("args,needle", [
    (["tournament", "nosuchagent"], "unknown agent 'nosuchagent'"),
    (["tournament", "defect", "--flip", "1.5", "0"], "flip chance"),
    (["tournament", "defect", "--length", "9", "3"], "greater than maximum"),
    (["tournament", "defect", "--payoffs", "3", "5", "1", "0"], "T > R > P > S"),
    (["tournament", "--no-such-option"], "No such option"),
    (["play", "defect"], "Missing argument"),
    (["tournament", "defect", "defect"], "two agents named defect"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(args, needle):
    status, out, err = run_cli(*args)
    assert status == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_file_that_is_not_an_agent_is_refused(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    status, _, err = run_cli("tournament", str(other))
    assert status == 2 and "not an agent file" in err


def test_play_prints_a_readable_trace_with_flips_marked():
    status, out, err = run_cli("play", "titfortat", "random", "--seed", "4", "--turns", "6",
                               "--isolation", "none", "--flip", "0.5", "0")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("titfortat vs random  seed 4  6 turns")
    assert sum(line.lstrip().split(" ")[0].isdigit() for line in lines) == 6
    assert "*" in out
    assert "Final score" in out


def test_play_json_matches_the_tournaments_first_round():
    status, out, _ = run_cli("play", "random", "titfortat", "--seed", "8", "--format", "json",
                             "--isolation", "none")
    game = json.loads(out)
    assert game["agents"] == ["random", "titfortat"]
    status, out, _ = run_cli("tournament", "random", "titfortat", "--seed", "8",
                             "--format", "json", "--isolation", "none")
    first = json.loads(out)["games"][0]
    assert first["a"] == "random"
    assert game["score"] == first["score"]
    assert len(game["turns"]) == first["length"] == json.loads(out)["rounds"][0]["game_length"]
    assert game["turns"][-1]["score"] == game["score"]


def test_help_works_for_every_command():
    status, out, _ = run_cli("--help")
    assert status == 0 and "tournament" in out
    for command in ("tournament", "play"):
        status, out, _ = run_cli(command, "--help")
        assert status == 0 and "--seed" in out


def test_import_harness_stays_light():
    code = ("import sys, time; t = time.perf_counter(); import harness; "
            "print(sorted(m for m in ('click', 'hy', 'sqlite3', 'json') if m in sys.modules))")
    done = subprocess.run([os.sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.stdout.strip() == "[]"
