"""Horizons (docs/rules.md, "Where the original text was ambiguous"): the geometric length's distribution with fixed seeds,
its cap, fixed lengths, and the same guarantees as the Levinson rule (records, --jobs)."""
import json
import math
from collections import Counter

import pytest

from harness.agents.specs import resolve
from harness.core.errors import ParameterError
from harness.core.horizons import geometric_length
from harness.core.rules import GameLength
from harness.core.seeds import derive
from harness.engine.tournament import Settings, run_tournament
from harness.isolation.handles.opening import Isolation

from conftest import run_cli


def lengths(p, cap, count=6000):
    return [geometric_length(derive(17, "g", i), p, cap) for i in range(count)]


def test_geometric_lengths_follow_the_geometric_distribution():
    p, count = 0.2, 6000
    counts = Counter(lengths(p, 10_000, count))
    # bins 1..12 and the tail beyond: chi-square against (1-p)^(k-1) p
    expected = [count * (1 - p) ** (k - 1) * p for k in range(1, 13)]
    observed = [counts[k] for k in range(1, 13)]
    expected.append(count - sum(expected))
    observed.append(count - sum(observed))
    chi_square = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    assert chi_square < 34.53  # 99.9th percentile, 12 degrees of freedom


def test_the_mean_geometric_length_is_one_over_p():
    p, count = 0.1, 6000
    drawn = lengths(p, 10_000, count)
    sd = math.sqrt(1 - p) / p
    assert abs(sum(drawn) / count - 1 / p) < 4 * sd / math.sqrt(count)


def test_the_cap_takes_the_rest_of_the_distribution():
    p, cap, count = 0.05, 10, 6000
    drawn = lengths(p, cap, count)
    assert max(drawn) == cap and min(drawn) == 1
    at_cap = (1 - p) ** (cap - 1)          # no stop in the first cap - 1 turns
    share = drawn.count(cap) / count
    assert abs(share - at_cap) < 4 * math.sqrt(at_cap * (1 - at_cap) / count)


def test_stop_probability_one_plays_one_turn():
    assert set(lengths(1.0, 50, 100)) == {1}


@pytest.mark.parametrize("length, words", [
    (dict(horizon="fixed"), "--length L L"),
    (dict(horizon="geometric"), "--stop-prob"),
    (dict(horizon="geometric", stop_prob=0.0), "above 0"),
    (dict(horizon="geometric", stop_prob=1.5), "at most 1"),
    (dict(horizon="uniform", stop_prob=0.5), "geometric only"),
    (dict(horizon="sometimes"), "one of"),
])
def test_a_horizon_that_makes_no_sense_is_refused(length, words):
    with pytest.raises(ParameterError, match=words):
        GameLength(10, 50, **length)


# a generous time limit: on a loaded machine a host may answer late, which is a fault
def tournament(length, agents=("titfortat", "pavlov", "grudger", "defect", "random"),
               jobs=1, mode="none", seed=5):
    settings = Settings(length=length, jobs=jobs, isolation=Isolation(mode, 30.0))
    return run_tournament(resolve(agents), seed, settings)


def test_geometric_games_draw_their_own_lengths_from_their_seeds():
    length = GameLength(1, 30, "geometric", 0.15)
    result = tournament(length)
    assert len({game.length for game in result.games}) > 3
    for game in result.games:
        assert game.length == geometric_length(game.seed, 0.15, 30) == len(game.turns)
    assert {r.game_length for r in result.rounds} == {30}   # the round records the cap


def test_fixed_games_all_have_the_fixed_length():
    result = tournament(GameLength(12, 12, "fixed"))
    assert {game.length for game in result.games} == {12}


@pytest.mark.slow  # measured: seconds of CPU
def test_geometric_horizon_same_result_with_any_jobs_and_in_a_process():
    length = GameLength(1, 25, "geometric", 0.2)
    one = tournament(length, jobs=1)
    for other in (tournament(length, jobs=2), tournament(length, jobs=2, mode="process")):
        assert [(g.a, g.b, g.length, g.score) for g in other.games] == \
            [(g.a, g.b, g.length, g.score) for g in one.games]


def test_the_command_line_records_and_prints_the_horizon(tmp_path):
    db = tmp_path / "run.sqlite"
    status, out, err = run_cli("tournament", "titfortat", "defect", "pavlov", "--isolation",
                               "none", "--seed", "3", "--horizon", "geometric",
                               "--stop-prob", "0.25", "--length", "1", "20", "--format",
                               "json", "--db", db)
    assert status == 0, err
    result = json.loads(out)
    assert result["params"]["horizon"] == "geometric" and result["params"]["stop_prob"] == 0.25
    from harness.store.reader import Record

    with Record(db) as record:
        assert record.settings.length == GameLength(1, 20, "geometric", 0.25)


def test_the_command_line_refuses_stop_prob_without_geometric():
    status, out, err = run_cli("tournament", "titfortat", "defect", "--stop-prob", "0.2")
    assert status == 2 and err.count("\n") == 1 and "--stop-prob" in err
