"""Same seed, same result: whatever the isolation mode, the number of workers, the order."""
import json

import pytest

from harness.agents.specs import builtin_spec, file_spec
from harness.core.rules import GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

CORE = AGENTS / "core"
PLAYERS = [str(CORE / "Gambler.py"), str(CORE / "Counter.py"), "random", "titfortat",
           "pavlov", "grudger"]


def tournament_json(*options):
    status, out, err = run_cli("tournament", *PLAYERS, "--seed", "11", "--format", "json",
                               *options)
    assert status == 0, err
    return json.loads(out)


def test_same_json_with_one_or_two_workers_and_in_or_out_of_process():
    reference = tournament_json("--jobs", "1", "--isolation", "none")
    for options in (["--jobs", "2", "--isolation", "none"],
                    ["--jobs", "1", "--isolation", "process"],
                    ["--jobs", "2", "--isolation", "process"]):
        result = tournament_json(*options)
        result["params"].pop("isolation")
        expected = dict(reference, params=dict(reference["params"]))
        expected["params"].pop("isolation")
        assert result == expected, options


def test_a_different_seed_gives_a_different_tournament():
    first = tournament_json("--isolation", "none")
    status, out, _ = run_cli("tournament", *PLAYERS, "--seed", "12", "--format", "json",
                             "--isolation", "none")
    assert json.loads(out)["games"] != first["games"]


@pytest.mark.parametrize("mode", ["none", "process"])
def test_an_agents_random_numbers_replay_from_the_game_seed(mode):
    isolation = Isolation(mode)
    gambler = open_handle(file_spec(CORE / "Gambler.py"), isolation)
    other = open_handle(builtin_spec("random"), isolation)
    try:
        plays = [[t.intended_a for t in play_game(gambler, other, 20, seed, GameParams()).turns]
                 for seed in (5, 6, 5)]
    finally:
        gambler.close()
        other.close()
    assert plays[0] == plays[2]
    assert plays[0] != plays[1]


def test_module_state_does_not_carry_from_one_game_to_the_next():
    counter = open_handle(file_spec(CORE / "Counter.py"), Isolation("none"))
    other = open_handle(builtin_spec("cooperate"), Isolation("none"))
    games = [play_game(counter, other, 8, seed, GameParams()) for seed in (1, 2)]
    assert [t.intended_a for t in games[0].turns] == [t.intended_a for t in games[1].turns]
