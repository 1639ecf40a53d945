"""A replaced process sees exactly what was played.

After a timeout the handle kills the process and starts a new one, brought up to date
with the game so far; after a crash the agent is out for the game and a new process
plays the next one. Whatever the schedule of answers, hangs and crashes, every call the
agent gets must show it the hist and score of the turns as recorded: the record is the
truth. The agent is a real file in a real process (tests/agents/core/Scheduled.py), its
behaviour on each call read from a schedule the test writes.
"""
from __future__ import annotations

import json
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness.agents.specs import builtin_spec, file_spec
from harness.core import seeds
from harness.core.rules import FlipParams, GameParams
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, play_games

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

PER_TURN = 2
PARAMS = GameParams(flip=FlipParams(0.3, 0.0), moves_per_turn=PER_TURN)
TIMEOUT = 0.4
ANSWER = st.text("CD", min_size=PER_TURN, max_size=PER_TURN)
ACTION = st.one_of(ANSWER, ANSWER, ANSWER, st.sampled_from(["hang", "crash"]))


def shown_calls(folder: Path):
    """(game id, hist, score) of every call, in order."""
    log = folder / "calls.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def game_id(record, side):
    """The agent's first random draw in that game (Scheduled.GAME)."""
    return random.Random(seeds.agent_seed(record.seed, side)).getrandbits(64)


def played_view(record, side):
    """For each turn t, the hist and score an agent on `side` must be shown before it."""
    mine = record.played_a if side == "a" else record.played_b
    theirs = record.played_b if side == "a" else record.played_a
    running = list(zip(record.running_a, record.running_b, strict=True))
    views, hist = [], []
    for turn in range(record.length):
        score = [0, 0] if turn == 0 else list(running[turn - 1][::1 if side == "a" else -1])
        views.append((list(hist), score))
        hist += [[m, t] for m, t in zip(mine[turn], theirs[turn], strict=True)]
    return views


def check_calls_against_records(calls, records, per_turn=PER_TURN):
    by_game = {}
    for game, hist, score in calls:
        by_game.setdefault(game, []).append((hist, score))
    games = {game_id(record, side): (record, side) for record, side in records}
    assert set(by_game) <= set(games)
    for game, shown in by_game.items():
        record, side = games[game]
        views = played_view(record, side)
        turns = []
        for hist, score in shown:
            assert len(hist) % per_turn == 0
            turn = len(hist) // per_turn
            assert (hist, score) == views[turn], f"turn {turn + 1} of {record.seed}"
            turns.append(turn)
        assert turns == sorted(set(turns)), "a turn asked twice"
        answered = {index for index in range(record.length)
                    if (side, index) not in record.fault_at}
        out = [index for (s, index), fault in record.fault_at.items()
               if s == side and fault.kind == "crash"]
        if out:  # after a crash the agent is not asked again that game
            answered = {index for index in answered if index < min(out)}
        assert answered <= set(turns), "an answer from a call that was never made"


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(schedule=st.lists(ACTION, min_size=1, max_size=12),
       lengths=st.lists(st.integers(1, 6), min_size=1, max_size=2))
def test_every_call_shows_the_turns_as_recorded(schedule, lengths):
    # where the agent's process sees the schedule and writes its calls: not under /tmp,
    # which is each game's own (harness/isolation/world.py)
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        folder = Path(folder)
        folder.chmod(0o777)   # a root monitor's agent is a user of its own
        shutil.copy(AGENTS / "core" / "Scheduled.py", folder)
        # enough answers for every call, after the drawn ones
        (folder / "schedule.json").write_text(json.dumps(schedule + ["CD"] * sum(lengths)))
        isolation = Isolation("process", TIMEOUT)
        agent = open_handle(file_spec(folder / "Scheduled.py"), isolation)
        other = open_handle(builtin_spec("random"), Isolation("none", TIMEOUT))
        records = play_games(agent, other, [(length, 1000 + number)
                                            for number, length in enumerate(lengths)], PARAMS)
        check_calls_against_records(shown_calls(folder), records)
