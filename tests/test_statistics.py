"""Random draws against their distributions, with fixed seeds."""
import math
from collections import Counter

from harness.agents.specs import builtin_spec
from harness.core.rules import FlipParams, GameLength, GameParams
from harness.engine.game import play_game
from harness.engine.rounds import draw_length
from harness.isolation.handles.opening import Isolation, open_handle


def cooperators():
    return [open_handle(builtin_spec(name), Isolation("none")) for name in ("cooperate", "defect")]


def test_flips_happen_at_rate_f_independently_for_each_agent():
    params = GameParams(flip=FlipParams(0.2, 0.0), moves_per_turn=3)
    a, b = cooperators()
    flips_a = flips_b = both = moves = 0
    for seed in range(40):
        game = play_game(a, b, 100, seed, params)
        for turn in game.turns:
            for k in range(3):
                fa = turn.played_a[k] != turn.intended_a[k]
                fb = turn.played_b[k] != turn.intended_b[k]
                flips_a += fa
                flips_b += fb
                both += fa and fb
                moves += 1
    sigma = math.sqrt(0.2 * 0.8 / moves)
    assert abs(flips_a / moves - 0.2) < 4 * sigma
    assert abs(flips_b / moves - 0.2) < 4 * sigma
    # independent: both flip together about F*F of the time, not F
    assert abs(both / moves - 0.04) < 4 * math.sqrt(0.04 * 0.96 / moves)


def test_flip_chance_decays_per_turn_as_the_default_mode_says():
    params = GameParams(flip=FlipParams(0.5, 10.0), moves_per_turn=3)  # -0.1 a turn
    a, b = cooperators()
    per_turn = Counter()
    for seed in range(300):
        game = play_game(a, b, 6, seed, params)
        for t, turn in enumerate(game.turns):
            per_turn[t] += sum(p != i for p, i in zip(turn.played_a, turn.intended_a, strict=True))
    for t in range(6):
        expected = max(0.0, 0.5 - 0.1 * t)
        rate = per_turn[t] / (300 * 3)
        assert abs(rate - expected) < 4 * math.sqrt(max(expected * (1 - expected), 1e-9) / 900) + 1e-9


def test_game_lengths_are_uniform_over_the_inclusive_range():
    length = GameLength(10, 14)
    counts = Counter(draw_length(99, round_number, length) for round_number in range(1, 5001))
    assert set(counts) == {10, 11, 12, 13, 14}
    expected = 5000 / 5
    chi_square = sum((counts[k] - expected) ** 2 / expected for k in counts)
    assert chi_square < 18.47  # 99.9th percentile, 4 degrees of freedom
