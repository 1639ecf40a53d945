"""Metrics: cooperation (intended and played), mutual cooperation, points per move, faults
by kind, head to head - in the JSON and computed from the games' turns."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from harness.core.rules import Payoffs
from harness.engine.game import GameRecord, Turn
from harness.isolation.handles.agent_handle import Fault
from harness.store.metrics import compute

from conftest import run_cli


def game(a, b, turns, round_number=1):
    """A GameRecord from (intended_a, played_a, intended_b, played_b, fault_a, fault_b)."""
    table = Payoffs().table()
    record = GameRecord(round_number, a, b, len(turns), 0)
    add = getattr(record, "add_turn", None) or record.turns.append
    score = [0, 0]
    for intended_a, played_a, intended_b, played_b, fault_a, fault_b in turns:
        for x, y in zip(played_a, played_b, strict=True):
            gained = table[x, y]
            score = [score[0] + gained[0], score[1] + gained[1]]
        add(Turn(intended_a, played_a, intended_b, played_b, fault_a, fault_b, tuple(score)))
    record.score = tuple(score)
    return record


def test_a_game_counted_by_hand():
    timeout = Fault("timeout", "no answer within 1 s")
    record = game("A", "B", [
        ("CCC", "CCD", "DDD", "DDD", None, None),     # A: 3 C meant, 2 played
        ("CCC", "CCC", "CCC", "CDC", None, timeout),  # B timed out: default CCC, a flip
    ])
    metrics = compute(["A", "B"], [record]).as_dict()
    a, b = metrics["agents"]["A"], metrics["agents"]["B"]
    assert a["moves"] == b["moves"] == 6
    assert a["cooperation_intended"] == 1.0 and a["cooperation_played"] == round(5 / 6, 4)
    assert b["cooperation_intended"] == 0.5 and b["cooperation_played"] == round(2 / 6, 4)
    assert a["mutual_cooperation"] == b["mutual_cooperation"] == round(2 / 6, 4)
    # A: 0+0+1 then 3+0+3 = 7; B: 5+5+1 then 3+5+3 = 22
    assert record.score == (7, 22)
    assert a["points_per_move"] == round(7 / 6, 4) and b["points_per_move"] == round(22 / 6, 4)
    assert b["faults"] == {"invalid": 0, "exception": 0, "timeout": 1, "crash": 0}
    assert metrics["head_to_head"] == {"A": {"B": round(7 / 6, 4)}, "B": {"A": round(22 / 6, 4)}}


def test_an_agent_that_never_played_has_no_rates():
    metrics = compute(["A", "B", "Idle"], [game("A", "B", [("C", "C", "D", "D", None, None)])])
    idle = metrics.as_dict()["agents"]["Idle"]
    assert idle["moves"] == 0 and idle["points_per_move"] is None
    assert "Idle" not in metrics.head_to_head()


def test_the_json_has_the_metrics_of_the_run():
    status, out, err = run_cli("tournament", "cooperate", "defect", "titfortat", "--seed", "1",
                               "--flip", "0", "0", "--isolation", "none", "--format", "json")
    assert status == 0, err
    metrics = json.loads(out)["metrics"]
    cooperate = metrics["agents"]["cooperate"]
    assert cooperate["cooperation_intended"] == cooperate["cooperation_played"] == 1.0
    assert metrics["agents"]["defect"]["cooperation_played"] == 0.0
    assert metrics["head_to_head"]["cooperate"]["defect"] == 0.0
    assert metrics["head_to_head"]["defect"]["cooperate"] == 5.0
    assert metrics["head_to_head"]["cooperate"]["titfortat"] == 3.0


moves = st.text(alphabet="CD", min_size=3, max_size=3)
fault = st.none() | st.builds(Fault, st.sampled_from(["invalid", "exception", "timeout"]),
                              st.just("x"))
turns = st.lists(st.tuples(moves, moves, moves, moves, fault, fault), min_size=1, max_size=12)
names = st.sampled_from(["A", "B", "C", "D"])


@pytest.mark.slow  # measured: seconds of CPU
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(names, names, turns), min_size=1, max_size=8))
def test_metrics_add_up(games):
    records = [game(*sorted((a, b)), t) for a, b, t in games if a != b]
    metrics = compute(["A", "B", "C", "D"], records)
    total_points = sum(sum(r.score) for r in records)
    counted = 0.0
    for name, tally in metrics.agents.items():
        shown = tally.as_dict()
        if tally.moves == 0:
            continue
        counted += tally.points
        for key in ("cooperation_intended", "cooperation_played", "mutual_cooperation"):
            assert 0 <= shown[key] <= 1
        assert shown["mutual_cooperation"] <= shown["cooperation_played"]
        faults = sum(1 for r in records for side, who in (("a", r.a), ("b", r.b))
                     if who == name for _ in r.faults(side))
        assert sum(shown["faults"].values()) == faults
    assert counted == total_points
    for (me, them), (points, played) in metrics.pairs.items():
        back = metrics.pairs[them, me]
        assert played == back[1]          # both sides of a pairing played the same moves
        assert points + back[0] <= 6 * played  # a move shares out at most 2R = 6
