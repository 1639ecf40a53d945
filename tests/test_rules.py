"""The rules of docs/rules.md, one by one."""
import pytest
from hypothesis import given, strategies as st

from harness.core.errors import ParameterError
from harness.core.rules import FlipParams, GameLength, GameParams, Payoffs, score_pairs
from harness.isolation.handles.opening import Isolation

moves = st.sampled_from("CD")
pairs = st.lists(st.tuples(moves, moves), max_size=60)


def test_the_worked_example_scores_10_5():
    assert score_pairs([("C", "D"), ("D", "C"), ("D", "C")]) == (10, 5)


@given(pairs)
def test_scoring_is_symmetric(history):
    mine, theirs = score_pairs(history)
    assert score_pairs([(t, m) for m, t in history]) == (theirs, mine)


@given(pairs)
def test_each_move_pays_as_the_table_says(history):
    mine, theirs = score_pairs(history)
    cc = history.count(("C", "C"))
    cd = history.count(("C", "D"))
    dc = history.count(("D", "C"))
    dd = history.count(("D", "D"))
    assert mine == 3 * cc + 0 * cd + 5 * dc + 1 * dd
    assert theirs == 3 * cc + 5 * cd + 0 * dc + 1 * dd
    # mutual cooperation is the only way both get R; the total is never above 2R a move
    assert mine + theirs <= 6 * len(history)


@given(st.integers(-5, 12), st.integers(-5, 12), st.integers(-5, 12), st.integers(-5, 12))
def test_payoff_tables_are_checked(t, r, p, s):
    valid = t > r > p > s and 2 * r > t + s
    if valid:
        assert Payoffs(t, r, p, s).table()["D", "C"] == (t, s)
    else:
        with pytest.raises(ParameterError):
            Payoffs(t, r, p, s)


def test_percent_per_turn_follows_the_worked_example():
    flip = FlipParams(0.25, 0.025)
    assert [round(flip.chance(t, 3 * t), 6) for t in range(3)] == [0.25, 0.24975, 0.2495]


def test_the_original_call_keeps_its_noise_under_the_default_decay():
    flip = FlipParams(0.25, 0.1)
    assert flip.chance(100, 300) == pytest.approx(0.15)


def test_fraction_per_move_is_the_literal_formula_clamped_at_zero():
    flip = FlipParams(0.25, 0.1, "fraction-per-move")
    assert flip.chance(0, 0) == 0.25
    assert flip.chance(0, 2) == pytest.approx(0.05)
    assert flip.chance(1, 3) == 0.0


@pytest.mark.parametrize("start,decay", [(-0.1, 0), (1.5, 0), (0.2, -1)])
def test_bad_flip_parameters_are_rejected(start, decay):
    with pytest.raises(ParameterError):
        FlipParams(start, decay)


@pytest.mark.parametrize("low,high", [(0, 5), (6, 5), (-3, 2)])
def test_bad_game_lengths_are_rejected(low, high):
    with pytest.raises(ParameterError):
        GameLength(low, high)


def test_bad_game_parameters_are_rejected():
    with pytest.raises(ParameterError):
        GameParams(moves_per_turn=0)
    with pytest.raises(ParameterError):
        Isolation(timeout=0)
