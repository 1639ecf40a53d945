"""An agent is shown the game as *played*, never as intended (docs/rules.md, "A game": hist is
"as actually played (after flips)", score the points of those moves).

A property over moves per turn, noise (both decay modes, flips frequent), default answer,
game lengths and what the agent answers (good moves or invalid answers, which play the
default answer): every call a real recording agent (tests/agents/core/Scheduled.py, which
logs the hist and score it was given) gets shows exactly the played turns of the game
record before it, once per turn. In `none` isolation (the agent in the monitor) and in
`process` isolation (its own host process; fewer examples, each starts a host). The sandbox
keeps the agent's folder read-only, so there the contract suite's printing agents
(tests/test_contract.py) check the same from what they print.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness.agents.specs import builtin_spec, file_spec
from harness.core.rules import FlipParams, GameParams
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, play_games
from test_replacement import check_calls_against_records, game_id, shown_calls

# a generous limit: no call here is meant to be late (test_replacement.py covers hangs)
TIMEOUT = 10.0


@st.composite
def games(draw):
    per_turn = draw(st.integers(1, 3))
    answer = st.text("CD", min_size=per_turn, max_size=per_turn)
    invalid = st.sampled_from(["C" * (per_turn + 1), "X" * per_turn, ""])
    params = GameParams(
        flip=FlipParams(draw(st.sampled_from([0.3, 0.5, 0.8])),
                        draw(st.sampled_from([0.0, 0.1, 2.0])),
                        draw(st.sampled_from(["percent-per-turn", "fraction-per-move"]))),
        moves_per_turn=per_turn,
        default_answer=draw(st.sampled_from("CD")))
    lengths = draw(st.lists(st.integers(1, 7), min_size=1, max_size=3))
    schedule = draw(st.lists(st.one_of(answer, answer, answer, invalid),
                             min_size=sum(lengths), max_size=sum(lengths)))
    opponent = draw(st.sampled_from(["random", "titfortat", "pavlov"]))
    return params, lengths, schedule, opponent


def check_shown_as_played(mode: str, params, lengths, schedule, opponent):
    # where the agent's process sees the schedule and writes its calls: not under /tmp,
    # which is each game's own (harness/isolation/world.py)
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        folder = Path(folder)
        folder.chmod(0o777)   # a root monitor's agent is a user of its own
        shutil.copy(AGENTS / "core" / "Scheduled.py", folder)
        (folder / "schedule.json").write_text(json.dumps(schedule))
        agent = open_handle(file_spec(folder / "Scheduled.py"), Isolation(mode, TIMEOUT))
        other = open_handle(builtin_spec(opponent), Isolation("none", TIMEOUT))
        records = play_games(agent, other, [(length, 500 + number)
                                            for number, length in enumerate(lengths)], params)
        calls = shown_calls(folder)
    check_calls_against_records(calls, records, params.moves_per_turn)
    # nothing here hangs or crashes: the agent is asked exactly once every turn
    per_game = {}
    for game, hist, _score in calls:
        per_game.setdefault(game, []).append(len(hist) // params.moves_per_turn)
    assert sorted(per_game.values()) == sorted(list(range(record.length))
                                               for record, _side in records)
    assert set(per_game) == {game_id(record, side) for record, side in records}
    # the property is about something: intended and played differ somewhere
    return any(intended != played for record, side in records
               for intended, played in zip(*_moves(record, side), strict=True))


def _moves(record, side):
    if side == "a":
        return record.intended_a, record.played_a
    return record.intended_b, record.played_b


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_in_the_monitor_every_call_shows_the_played_game(game):
    check_shown_as_played("none", *game)


@pytest.mark.slow
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_in_its_own_process_every_call_shows_the_played_game(game):
    check_shown_as_played("process", *game)


def test_the_examples_flip_moves():
    """Without flips the property could not tell played from intended: a fixed game with
    heavy noise is flipped, so the check above has something to catch."""
    params = GameParams(flip=FlipParams(0.8, 0.0), moves_per_turn=3)
    assert check_shown_as_played("none", params, [6], ["CCC"] * 6, "random")
