"""With one move per turn each built-in plays exactly the classic strategy of its name
(as the Axelrod library defines it); with three it answers the opponent's previous turn."""
import pytest
from hypothesis import given, settings, strategies as st

from harness.agents.specs import builtin_spec, callable_spec
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

OPPOSITE = {"C": "D", "D": "C"}

CLASSIC = {  # (my moves so far, theirs so far) -> my next move, straight from the definitions
    "cooperate": lambda me, op: "C",
    "defect": lambda me, op: "D",
    "titfortat": lambda me, op: op[-1] if op else "C",
    "suspicioustitfortat": lambda me, op: op[-1] if op else "D",
    "grudger": lambda me, op: "D" if "D" in op else "C",
    "pavlov": lambda me, op: "C" if not op or me[-1] == op[-1] else "D",
    "winshiftlosestay": lambda me, op: "D" if not op or me[-1] == op[-1] else "C",
    "titfortwotats": lambda me, op: "D" if op[-2:] == ["D", "D"] else "C",
    "twotitsfortat": lambda me, op: "D" if "D" in op[-2:] else "C",
    "hardtitfortat": lambda me, op: "D" if "D" in op[-3:] else "C",
    "bully": lambda me, op: OPPOSITE[op[-1]] if op else "D",
    "antitfortat": lambda me, op: OPPOSITE[op[-1]] if op else "C",
    "alternator": lambda me, op: "CD"[len(me) % 2],
    "cyclerccd": lambda me, op: "CCD"[len(me) % 3],
    "cyclerddc": lambda me, op: "DDC"[len(me) % 3],
    "cyclercccd": lambda me, op: "CCCD"[len(me) % 4],
    "softmajority": lambda me, op: "C" if op.count("C") >= op.count("D") else "D",
    "hardmajority": lambda me, op: "D" if op.count("D") >= op.count("C") else "C",
    "forgiver": lambda me, op: "D" if op.count("D") > len(op) / 10 else "C",
}
QUIET = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=1)


def scripted(moves):
    def opponent(hist, score):
        return [moves[len(hist)]]
    return opponent


def played_by(name, script, mode):
    builtin = open_handle(builtin_spec(name), Isolation(mode))
    other = open_handle(callable_spec(scripted(script), "zz_script"), Isolation("none"))
    try:
        game = play_game(builtin, other, len(script), 1, QUIET)
    finally:
        builtin.close()
    return [t.intended_a for t in game.turns]


@pytest.mark.parametrize("name", sorted(CLASSIC))
@settings(max_examples=25, deadline=None)
@given(script=st.lists(st.sampled_from("CD"), min_size=1, max_size=30))
def test_one_move_per_turn_is_the_classic_strategy(name, script):
    expected = []
    for turn in range(len(script)):
        expected.append(CLASSIC[name](expected[:turn], script[:turn]))
    assert played_by(name, script, "none") == expected


def test_every_built_in_has_a_classic_reference():
    from harness.agents.builtins import BUILTINS

    assert set(BUILTINS) - {"random"} == set(CLASSIC)


def test_in_a_host_process_a_built_in_plays_the_same():
    script = list("CDDCDCCCDDDCDC")
    for name in ("grudger", "pavlov", "titfortwotats", "forgiver"):
        assert played_by(name, script, "process") == played_by(name, script, "none")


def test_with_three_moves_titfortat_answers_the_previous_turn_position_by_position():
    three = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=3)
    tft = open_handle(builtin_spec("titfortat"), Isolation("none"))
    turns = [["C", "D", "D"], ["D", "C", "C"], ["C", "C", "C"]]
    other = open_handle(callable_spec(lambda hist, score: turns[len(hist) // 3], "zz"),
                        Isolation("none"))
    game = play_game(tft, other, 3, 1, three)
    assert [t.intended_a for t in game.turns] == ["CCC", "CDD", "DCC"]


def test_random_cooperates_about_half_the_time():
    handle = open_handle(builtin_spec("random"), Isolation("none"))
    other = open_handle(builtin_spec("cooperate"), Isolation("none"))
    moves = "".join(t.intended_a for seed in range(20)
                    for t in play_game(handle, other, 50, seed, QUIET).turns)
    assert abs(moves.count("C") / len(moves) - 0.5) < 4 * (0.25 / len(moves)) ** 0.5


@pytest.mark.parametrize("name", sorted(CLASSIC))
@settings(max_examples=25, deadline=None)
@given(per_turn=st.integers(1, 3), data=st.data())
def test_as_a_hist_function_a_built_in_answers_a_hist_grown_by_many_turns_as_turn_by_turn(
        name, per_turn, data):
    """Called as a `(hist, score)` function, a built-in may be handed several new turns at
    once (its first call in a game joined late): it answers as one told every turn."""
    import random

    from harness.agents.builtins import BUILTINS

    turns = data.draw(st.lists(st.tuples(st.text("CD", min_size=per_turn, max_size=per_turn),
                                         st.text("CD", min_size=per_turn, max_size=per_turn)),
                               max_size=12))
    calls_at = sorted(data.draw(st.sets(st.integers(0, len(turns)), min_size=1)))
    function = BUILTINS[name](random.Random(0), per_turn)
    for turns_so_far in calls_at:
        told = BUILTINS[name].strategy(None, per_turn)
        for mine, theirs in turns[:turns_so_far]:
            told.observe(mine, theirs)
        hist = [pair for mine, theirs in turns[:turns_so_far] for pair in zip(mine, theirs, strict=True)]
        assert "".join(function(hist, [0, 0])) == told.answer()
