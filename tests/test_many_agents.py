"""Any number of agents plays, under the usual open-file limit.

Each agent's host process holds five descriptors in the monitor (three pipes and its game
channel's two). With more agents than fit under the monitor's open-file limit (set soft
and hard, as `ulimit -n` does), the round must still be played in full: no agent graded
`load-error` for the harness's own limit, no internal error (select() used to fail past
descriptor 1024). The real command line, in a
monitor process of its own; and the grouping of a round's games, as a property.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from itertools import combinations

import pytest
from hypothesis import given, settings, strategies as st

from harness.engine.rounds import GameJob
from harness.engine.runners import FDS_KEPT_FREE, FDS_PER_HOST, phases

from conftest import ROOT

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)


def agent_files(tmp_path, agents: int) -> list[str]:
    folder = tmp_path / "agents"
    folder.mkdir()
    for number in range(agents):
        name = f"Cooperator{number:03d}"
        (folder / f"{name}.py").write_text(f"def {name}(hist, score):\n    return ['C']\n")
    return [str(folder)]


def copies_of_a_builtin(tmp_path, agents: int) -> list[str]:
    """`agents` copies of `cooperate`, each in a host process of its own like a file agent,
    but playing without a fork per game: a round of 400 stays minutes, not an hour."""
    population = tmp_path / "population.json"
    population.write_text(json.dumps(
        {"types": [{"id": "cooperator", "agent": "cooperate", "count": agents}]}))
    return ["--population", str(population)]


def tournament_under_file_limit(tmp_path, agents: int, file_limit: int,
                                field=agent_files) -> dict:
    command = [sys.executable, "-m", "harness", "tournament", *field(tmp_path, agents),
               "--isolation", "process", "--length", "1", "1", "--flip", "0", "0",
               "--max-rounds", "1", "--moves-per-turn", "1", "--seed", "11",
               "--format", "json"]

    def limit_open_files():
        resource.setrlimit(resource.RLIMIT_NOFILE, (file_limit, file_limit))

    done = subprocess.run(command, capture_output=True, text=True, timeout=3600,
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          preexec_fn=limit_open_files)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "internal error" not in done.stderr
    result = json.loads(done.stdout)
    assert {agent["status"] for agent in result["agents"]} == {"ok"}
    assert len(result["standings"]) == agents
    assert all(sum(s["faults"].values()) == 0 for s in result["standings"])
    assert len(result["games"]) == agents * (agents - 1) // 2
    assert all(game["score"] == [3, 3] for game in result["games"])  # R for both, each game
    return result


def test_a_round_with_more_agents_than_processes_fit_is_played_in_full(tmp_path):
    """A limit that leaves room for 4 host processes, 8 agents."""
    tournament_under_file_limit(tmp_path, 8, FDS_KEPT_FREE + 4 * FDS_PER_HOST)


@pytest.mark.slow
def test_400_agents_play_a_round_under_a_limit_of_1024_open_files(tmp_path):
    tournament_under_file_limit(tmp_path, 400, 1024, field=copies_of_a_builtin)


@settings(max_examples=200, derandomize=True)
@given(agents=st.integers(2, 40), cap=st.integers(2, 50))
def test_a_round_in_groups_plays_every_game_once_among_agents_that_fit(agents, cap):
    names = [f"A{number:02d}" for number in range(agents)]
    jobs = [GameJob(1, a, b, 1, 0) for a, b in combinations(names, 2)]
    groups = phases(jobs, cap)
    played = sorted(index for _agents, indices in groups for index in indices)
    assert played == list(range(len(jobs)))
    for group, indices in groups:
        if group is None:               # all at once: they fit
            assert len(groups) == 1 and agents <= cap
            continue
        assert len(group) <= cap
        assert all({jobs[index].a, jobs[index].b} <= group for index in indices)
