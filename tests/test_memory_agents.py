"""Memory-N agents (`memory:BITS`): hand-computed games, the Memory-1 vectors equal to the
built-ins they spell move for move, every isolation mode, one clear line for a bad vector."""
import pytest
from hypothesis import given, settings, strategies as st

from harness.agents.specs import builtin_spec, callable_spec, resolve
from harness.core.errors import HarnessError
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import run_cli

QUIET = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=1)

SAME_AS = {  # the built-in -> the vector (and opening) that spells it
    "titfortat": "memory:0101",
    "suspicioustitfortat": "memory:0101:D",
    "pavlov": "memory:0110",
    "winshiftlosestay": "memory:1001:D",
    "antitfortat": "memory:1010",
    "bully": "memory:1010:1",
    "cooperate": "memory:0000",
    "defect": "memory:1111:D",
    # Memory-2: index bits are my older, my newer, their older, their newer move
    # (twotitsfortat is not one: on move 2 it already answers a defection, where a
    # vector still plays its opening)
    "titfortwotats": "memory:0001000100010001",
}


def scripted(moves, per_turn):
    def opponent(hist, score):
        turn = len(hist) // per_turn
        return list(moves[turn * per_turn:(turn + 1) * per_turn])
    return opponent


def intended(spec_text, script, params, seed=1, mode="none"):
    per_turn = params.moves_per_turn
    [spec] = resolve([spec_text])
    agent = open_handle(spec, Isolation(mode, 30.0))  # never late on a busy machine
    other = open_handle(callable_spec(scripted(script, per_turn), "zz_script"),
                        Isolation("none"))
    try:
        game = play_game(agent, other, len(script) // per_turn, seed, params)
    finally:
        agent.close()
    return "".join(t.intended_a for t in game.turns)


def test_memory_two_by_hand():
    # entries 3 (me C C, them D D) and 6 (me C D, them D C) defect, the rest cooperate
    vector = "memory:0001001000000000"
    # moves 1-2: the opening C C; move 3: window (C,C | D,D) = 3 -> D;
    # move 4: (C,D | D,C) = 6 -> D; move 5: (D,D | C,C) = 12 -> C; move 6: (D,C | C,C) = 8 -> C
    assert intended(vector, "DDCCCC", QUIET) == "CCDDCC"


def test_memory_two_opening_by_hand():
    # opening D then C; afterwards always the entry of (me D,C | them C,C) = 8 -> D
    vector = "memory:0000000010000000:DC"
    assert intended(vector, "CCCC", QUIET) == "DCDC"[:2] + "D" + "C"
    # move 4 looks at (me C,D | them C,C) = 4 -> C


def test_three_moves_per_turn_answer_the_previous_turn_position_by_position():
    three = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=3)
    # tit for tat as a vector: each move copies the opponent's move at the same position
    # one turn earlier
    assert intended("memory:0101", "CDDDCCCCC", three) == "CCC" + "CDD" + "DCC"


@pytest.mark.parametrize("name", sorted(SAME_AS))
@settings(max_examples=20, deadline=None)
@given(script=st.lists(st.sampled_from("CD"), min_size=1, max_size=12),
       per_turn=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2 ** 32),
       flip=st.sampled_from([0.0, 0.3]))
def test_vectors_play_as_the_builtins_they_spell(name, script, per_turn, seed, flip):
    params = GameParams(flip=FlipParams(flip, 0.0), moves_per_turn=per_turn)
    moves = "".join(script) * per_turn
    assert intended(SAME_AS[name], moves, params, seed) == intended(name, moves, params, seed)


def test_in_a_host_process_a_vector_plays_the_same():
    params = GameParams(flip=FlipParams(0.2, 0.0), moves_per_turn=3)
    script = "CDDCDCCCDDDCDCCDDC"
    vector = "memory:0110100110010110"
    assert intended(vector, script, params, 5, "process") == intended(vector, script, params, 5)


def test_in_the_sandbox_a_vector_plays_the_same(bwrap):
    params = GameParams(flip=FlipParams(0.2, 0.0), moves_per_turn=3)
    script = "CDDCDCCCDDDCDCCDDC"
    vector = "memory:0101:D"
    assert intended(vector, script, params, 5, "sandbox") == intended(vector, script, params, 5)


@pytest.mark.parametrize("text, words", [
    ("memory:010", "3 entries"),
    ("memory:01010", "5 entries"),
    ("memory:0120", "'2'"),
    ("memory:CDCD", "'C'"),
    ("memory:", "0 entries"),
    ("memory:0101:CDX", "opening"),
    ("memory:0101:CC", "opening"),
])
def test_a_bad_vector_is_refused_in_one_line(text, words):
    with pytest.raises(HarnessError, match=words):
        resolve([text])


def test_the_command_line_refuses_a_bad_vector_with_one_line():
    status, out, err = run_cli("tournament", "memory:011", "titfortat", "--isolation", "none")
    assert status == 2
    assert err.count("\n") == 1 and "memory:011" in err and "Traceback" not in err


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="01CDcd: _x2", max_size=40))
def test_any_memory_text_loads_or_is_refused_in_one_line(text):
    try:
        [spec] = resolve(["memory:" + text])
    except HarnessError as error:
        assert "\n" not in str(error)
    else:
        assert spec.language == "builtin"


def test_a_tournament_of_vectors_records_and_resumes(tmp_path):
    """The record keeps the vector, so a resumed run plays the same agents."""
    from harness.run.tournament_session import recorded_specs
    from harness.store.reader import Record

    db = tmp_path / "run.sqlite"
    status, out, err = run_cli("tournament", "memory:0101", "memory:0110:D", "defect",
                               "--isolation", "none", "--seed", "4", "--db", db,
                               "--format", "lisp")
    assert status == 0, err
    with Record(db) as record:
        specs = {spec.name: spec for spec in recorded_specs(record)}
    assert specs["memory:0110:D"].source == "memory:0110:D"
    assert specs["defect"] == builtin_spec("defect")
