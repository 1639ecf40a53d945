"""Any number of agents plays, under the usual open-file limit (issue 11, section 1).

With 400 agents, each in a host process of its own (three pipes each in the monitor), a
monitor limited to 1024 open files (soft and hard, as `ulimit -n 1024` sets them) must play
the whole round: no agent graded `load-error` for the harness's own limit, no internal
error (select() used to fail past descriptor 1024). The real command line, in a monitor
process of its own.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from conftest import ROOT

AGENTS = 400
FILE_LIMIT = 1024


def limit_open_files():
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


@pytest.mark.slow
def test_400_agents_play_a_round_under_a_limit_of_1024_open_files(tmp_path):
    folder = tmp_path / "agents"
    folder.mkdir()
    for number in range(AGENTS):
        name = f"Cooperator{number:03d}"
        (folder / f"{name}.py").write_text(f"def {name}(hist, score):\n    return ['C']\n")
    command = [sys.executable, "-m", "harness", "tournament", str(folder), "--isolation",
               "process", "--length", "1", "1", "--flip", "0", "0", "--max-rounds", "1", "--moves-per-turn", "1",
               "--seed", "11", "--format", "json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600,
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          preexec_fn=limit_open_files)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "internal error" not in done.stderr
    result = json.loads(done.stdout)
    assert len(result["standings"]) == AGENTS
    assert all(sum(s["faults"].values()) == 0 for s in result["standings"])
    assert len(result["games"]) == AGENTS * (AGENTS - 1) // 2
    assert all(game["score"] == [3, 3] for game in result["games"])  # R for both, each game
    assert {agent["status"] for agent in result["agents"]} == {"ok"}
