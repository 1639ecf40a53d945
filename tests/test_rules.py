"""The rules of docs/rules.md, one by one."""
import pytest
from hypothesis import given, settings, strategies as st

from harness.core.errors import ParameterError
from harness.core.rules import FlipParams, GameLength, GameParams, Payoffs
from harness.isolation.handles.opening import Isolation

from conftest import score_pairs

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


def _flipped_move_by_move(params, seed, length, intended):
    """The flips of one side as docs/rules.md draws them: from the side's own generator,
    one draw a move, in order, each against that move's F; where F is one for the whole
    turn (percent-per-turn, or no decay), a turn whose F is 0 draws nothing."""
    import random

    from harness.core.rules import FLIPPED
    draw, flip, per_turn = random.Random(seed).random, params.flip, params.moves_per_turn
    played = []
    for turn in range(length):
        if flip.per_turn_constant() and flip.chance(turn, turn * per_turn) <= 0:
            played.append(intended)
            continue
        played.append("".join(
            FLIPPED[m] if draw() < flip.chance(turn, turn * per_turn + k) else m
            for k, m in enumerate(intended)))
    return played


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(0, 1), st.sampled_from([0.0, 0.05, 1.0, 10.0, 60.0]),
       st.sampled_from(["percent-per-turn", "fraction-per-move"]), st.integers(1, 4),
       st.integers(1, 40), st.integers(0, 2 ** 63 - 1))
def test_each_move_is_flipped_by_its_own_draw_in_order(start, decay, mode, per_turn, length,
                                                        seed):
    """The draws stay in the order the rules give them, so a record played by any version
    replays to the same flips (the game draws a whole game's flips up front)."""
    from harness.agents.specs import builtin_spec
    from harness.core import seeds
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import open_handle

    params = GameParams(flip=FlipParams(start, decay, mode), moves_per_turn=per_turn)
    a, b = (open_handle(builtin_spec(name), Isolation("none")) for name in ("cooperate", "defect"))
    game = play_game(a, b, length, seed, params)
    assert game.played_a == _flipped_move_by_move(params, seeds.flip_seed(seed, "a"), length,
                                                  "C" * per_turn)
    assert game.played_b == _flipped_move_by_move(params, seeds.flip_seed(seed, "b"), length,
                                                  "D" * per_turn)


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
