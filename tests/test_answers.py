"""Reading an agent's answer: what is accepted, what is refused, and nothing trusted."""
import pytest
from hypothesis import given, strategies as st

from harness.answers import InvalidAnswer, normalize


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
