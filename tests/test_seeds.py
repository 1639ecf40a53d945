"""Seeds an agent cannot use: the default seed is drawn from the OS with all 63 bits; a run
given one by hand says that agents who know it can predict their noise; validation's games
are seeded afresh each time, and the seed is printed so a failure can be replayed."""
import json
import re

import pytest

from harness.core.seeds import SEED_LIMIT, fresh_seed

from conftest import AGENTS, run_cli

SPOTTER = AGENTS / "hostile" / "ValidationSpotter.py"
SHORT = ("--length", "3", "3", "--max-rounds", "1", "--isolation", "none")


def test_a_fresh_seed_uses_all_63_bits():
    seeds = [fresh_seed() for _ in range(64)]
    assert all(0 <= seed < SEED_LIMIT for seed in seeds)
    # with 31 bits every seed would be below 2**31; with 63, all 64 below 2**62 has
    # probability 2**-64
    assert max(seeds) >= 2 ** 62
    assert len(set(seeds)) == len(seeds)


def test_a_seed_given_by_hand_is_named_once_as_predictable():
    status, out, err = run_cli("tournament", "cooperate", "defect", "--seed", "11", *SHORT,
                               "--format", "json")
    assert status == 0, err
    notes = [line for line in err.splitlines() if "predict" in line]
    assert len(notes) == 1 and "11" in notes[0]
    assert json.loads(out)["seed"] == 11


def test_without_a_seed_the_run_draws_one_says_nothing_and_prints_it():
    status, out, err = run_cli("tournament", "cooperate", "defect", *SHORT, "--format", "json")
    assert status == 0, err
    assert "predict" not in err
    assert 0 <= json.loads(out)["seed"] < SEED_LIMIT


def test_a_seed_above_63_bits_is_bad_usage():
    status, _, err = run_cli("tournament", "cooperate", "defect", "--seed", str(SEED_LIMIT))
    assert status == 2 and "Traceback" not in err


def _validate(*options):
    status, out, err = run_cli("validate", SPOTTER, "--isolation", "process", "--format",
                               "json", *options)
    assert status == 1, err
    [verdict] = json.loads(out)
    [problem] = [p for p in verdict["problems"] if p["code"] == "exception"]
    draw = re.search(r"my first draw was ([0-9.e-]+)", problem["message"]).group(1)
    return verdict["seed"], draw


@pytest.mark.slow  # measured: seconds of CPU
def test_validation_games_are_seeded_afresh_and_replayed_with_the_printed_seed():
    first_seed, first_draw = _validate()
    second_seed, second_draw = _validate()
    assert first_seed != second_seed and first_draw != second_draw
    assert _validate("--seed", str(first_seed)) == (first_seed, first_draw)


def test_the_table_prints_the_seed_to_replay_with():
    status, out, err = run_cli("validate", SPOTTER, "--isolation", "process", "--seed", "77")
    assert status == 1, err
    assert "--seed 77" in out
    assert "predict" not in err  # validation's seed is not the tournament's
