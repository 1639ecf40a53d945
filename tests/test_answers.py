"""Reading an agent's answer: what is accepted, what is refused, and nothing trusted."""
import pytest
from hypothesis import given, strategies as st

from harness.agents.answers import InvalidAnswer, normalize


@given(st.lists(st.sampled_from("CD"), min_size=1, max_size=5))
def test_canonical_answers_pass_unchanged_in_any_sequence_type(moves):
    expected = "".join(moves)
    for answer in (moves, tuple(moves), iter(moves)):
        assert normalize(answer, len(moves))[0] == expected
    assert normalize(moves, len(moves))[1] is None


@given(st.lists(st.sampled_from(["C", "D", "c", "d"]), min_size=3, max_size=3))
def test_lower_case_is_accepted_with_a_warning(moves):
    result, warning = normalize(moves, 3)
    assert result == "".join(moves).upper()
    assert (warning is None) == all(m in "CD" for m in moves)


@given(st.lists(st.sampled_from("CD"), min_size=0, max_size=6).filter(lambda m: len(m) != 3))
def test_wrong_lengths_are_invalid(moves):
    with pytest.raises(InvalidAnswer):
        normalize(moves, 3)


@pytest.mark.parametrize("answer", [None, 3, 2.5, {"C": 1}, b"CCC", ["C", "C", 1],
                                    ["CC", "C", "C"], ["X", "C", "D"], [None] * 3])
def test_things_that_are_not_moves_are_invalid(answer):
    with pytest.raises(InvalidAnswer):
        normalize(answer, 3)


class Both(str):
    """A str that claims to equal both C and D."""

    def __eq__(self, other):
        return other in ("C", "D")

    __hash__ = str.__hash__

    def __str__(self):
        return "C"


def test_a_str_subclass_is_read_by_its_characters_not_its_claims():
    with pytest.raises(InvalidAnswer):
        normalize([Both("X")] * 3, 3)
    assert normalize([Both("D")] * 3, 3)[0] == "DDD"


def test_an_endless_iterator_is_read_only_one_item_too_far():
    def forever():
        while True:
            yield "C"
    with pytest.raises(InvalidAnswer, match="more than 3"):
        normalize(forever(), 3)


def test_an_iterable_that_raises_is_invalid_not_a_crash():
    class Bad:
        def __iter__(self):
            raise RuntimeError("no")
    with pytest.raises(InvalidAnswer, match="fails when read"):
        normalize(Bad(), 3)


# -- what a warning or a refusal says ----------------------------------------------------------
@given(st.lists(st.sampled_from(["C", "D", "c", "d"]), min_size=3, max_size=3))
def test_the_warning_names_exactly_the_moves_that_are_not_upper_case(moves):
    _result, warning = normalize(moves, 3)
    odd = [move for move in dict.fromkeys(moves) if move in "cd"]
    if odd:
        assert f"spells {', '.join(repr(move) for move in odd)} non-canonically" in warning
        assert not any(f"{move!r}," in warning.split("spells")[1] for move in "CD")


@pytest.mark.parametrize("answer", ["CCD", "ccd"])
def test_one_string_is_told_to_be_a_list_whatever_its_case(answer):
    assert normalize(answer, 3) == (
        "CCD", f"answer {answer!r} is one string, not a list of moves; return a list: "
               "['C', 'C', 'D']")


def test_a_hy_agents_answers_are_quoted_in_hy_syntax():
    import hy.models

    from lisp_bridge.hy_data import hist_pair

    with pytest.raises(InvalidAnswer, match=r"returned 2 moves \(\(C D\)\), expected 3"):
        normalize(hist_pair("C", "D"), 3, lisp=True)
    with pytest.raises(InvalidAnswer, match=r'"X" is not a move \(C or D\) in #\("C" "X" "D"\)'):
        normalize(("C", "X", "D"), 3, lisp=True)
    assert normalize("ccd", 3, lisp=True)[1] == (
        'answer "ccd" is one string, not a list of moves; return a list: ["C" "C" "D"]')
    warning = normalize([hy.models.Keyword("C"), "c", hy.models.Symbol("D")], 3, lisp=True)[1]
    assert warning == """answer [:C "c" 'D] spells :C, "c" non-canonically; write upper-case C and D"""


def test_a_hy_agents_quoted_form_is_quoted_as_written():
    """`'(C X D)` evaluates to a Hy Expression of symbols: the message shows the form and
    the symbol as the agent wrote them, not `"X" ... in <Expression object>`."""
    import hy

    answer = hy.eval(hy.read("'(C X D)"))
    with pytest.raises(InvalidAnswer, match=r"^'X is not a move \(C or D\) in '\(C X D\)$"):
        normalize(answer, 3, lisp=True)
    with pytest.raises(InvalidAnswer, match=r"^returned 2 moves \('\[C :D\]\), expected 3$"):
        normalize(hy.eval(hy.read("'[C :D]")), 3, lisp=True)
    with pytest.raises(InvalidAnswer, match=r"""^"X" is not a move \(C or D\) in '\(C "X" 1\)$"""):
        normalize(hy.eval(hy.read("""'(C "X" 1)""")), 3, lisp=True)


class ClaimsToBeC(str):
    """A string whose methods lie: only its own characters count."""

    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

    def __str__(self):
        return "C"


def _outcome(read, answer, moves_per_turn):
    try:
        return read(answer, moves_per_turn, False)
    except InvalidAnswer as error:
        return "invalid", str(error)


@given(st.lists(st.sampled_from(["C", "D", "c", "", "CC", ClaimsToBeC("D"), ClaimsToBeC("C"),
                                 ClaimsToBeC("x"), 1, None, b"C", ("C",)]), max_size=4),
       st.booleans(), st.integers(1, 4))
def test_the_quick_way_answers_as_the_careful_one(items, as_tuple, moves_per_turn):
    """normalize's quick way (a list or tuple of strings of C and D) decides exactly as the
    careful reading of any answer does."""
    import hy.models

    from harness.agents.answers import _normalize_slowly
    from lisp_bridge.hy_data import C

    for answer in (items, items + [hy.models.Symbol("D"), C][:moves_per_turn - len(items)]):
        answer = tuple(answer) if as_tuple else answer
        assert (_outcome(normalize, answer, moves_per_turn)
                == _outcome(_normalize_slowly, answer, moves_per_turn))
