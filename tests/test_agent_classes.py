"""Agents written as classes (Python and Hy): a fresh instance every game, state kept in
the instance during the game, the same in every isolation mode; validated and named as
function agents are; a class without move() or whose __init__ fails is a load error."""
import json

import pytest

from harness.agents.specs import builtin_spec, file_spec
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

CLASSES = AGENTS / "classes"
QUIET = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=3)


def two_games(name, opponent, mode, turns=4):
    """The agent's intended moves in two games in a row on the same handle."""
    me = open_handle(file_spec(CLASSES / name), Isolation(mode, 30.0))  # never late
    other = open_handle(builtin_spec(opponent), Isolation("none"))
    try:
        return [[t.intended_a for t in play_game(me, other, turns, seed, QUIET).turns]
                for seed in (1, 2)]
    finally:
        me.close()


@pytest.mark.parametrize("mode", ["none", "process"])
def test_a_python_class_keeps_state_in_its_instance_for_one_game(mode):
    # three defections seen after turn 1: grim from turn 3; a new game starts friendly
    expected = ["CCC", "DDD", "DDD", "DDD"]
    assert two_games("ClassyPerson.py", "defect", mode) == [expected, expected]


@pytest.mark.parametrize("mode", ["none", "process"])
def test_a_hy_class_keeps_state_in_its_instance_for_one_game(mode):
    expected = ["CCC", "CCC", "DDD", "CCC"]
    assert two_games("BakerClark.hy", "cooperate", mode) == [expected, expected]


def test_in_the_sandbox_classes_play_the_same(bwrap):
    assert two_games("ClassyPerson.py", "defect", "sandbox") == \
        two_games("ClassyPerson.py", "defect", "none")
    assert two_games("BakerClark.hy", "cooperate", "sandbox") == \
        two_games("BakerClark.hy", "cooperate", "none")


def test_a_class_without_move_or_with_a_failing_init_does_not_load():
    status, out, err = run_cli("tournament", CLASSES / "NoMove.py", CLASSES / "BrokenInit.py",
                               "titfortat", "--isolation", "process", "--format", "json",
                               "--length", "3", "4", "--seed", "1")
    assert status == 0, err
    agents = {a["name"]: a for a in json.loads(out)["agents"]}
    assert agents["NoMove"]["status"] == "disqualified"
    assert "no method move(self, hist, score)" in agents["NoMove"]["message"]
    assert agents["BrokenInit"]["status"] == "disqualified"
    assert "BrokenInit.py:6: BrokenInit() failed: RuntimeError" in \
        agents["BrokenInit"]["message"]


def test_validate_passes_class_agents():
    status, out, err = run_cli("validate", CLASSES / "ClassyPerson.py",
                               CLASSES / "BakerClark.hy", "--isolation", "process",
                               "--format", "json")
    assert status == 0, out + err
    assert all(v["ok"] and not v["problems"] for v in json.loads(out))
