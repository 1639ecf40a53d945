"""The Common Lisp prelude for Hy: CL's answers on Python lists, read as Hy code."""
import builtins

import hy
import pytest
from hypothesis import given, strategies as st

from lisp_bridge import cl
from lisp_bridge.hy_data import C, D, hist_pair

Symbol = hy.models.Symbol

PRELUDE = ["car", "cdr", "cadr", "cddr", "first", "second", "third", "nth", "last", "cons",
           "append", "null", "eq", "equal", "member", "mapcar", "remove-if", "remove-if-not",
           "count-if", "length", "reverse", "list*"]


def hy_eval(code, **names):
    namespace = dict(names)
    hy.eval(hy.read_many("(import lisp_bridge.cl *)"), namespace)
    return hy.eval(hy.read_many(code), namespace)


def test_import_star_gives_exactly_the_prelude_and_shadows_no_builtin():
    namespace = {}
    hy.eval(hy.read_many("(import lisp_bridge.cl *)"), namespace)
    assert {name for name in namespace if not name.startswith("__")} == {
        hy.mangle(name) for name in PRELUDE}
    assert not {hy.mangle(name) for name in PRELUDE} & set(dir(builtins))
    assert hy_eval("(list (range 2))") == [0, 1]  # Python's list is still Python's


@pytest.mark.parametrize("code, expected", [
    ("(car [])", None), ("(car None)", None), ("(car [1 2])", 1),
    ("(cdr [])", []), ("(cdr [1 2 3])", [2, 3]), ("(cadr [1 2 3])", 2), ("(cddr [1 2 3])", [3]),
    ("(first [7])", 7), ("(second [1])", None), ("(third [1 2 3])", 3),
    ("(nth 0 [4 5])", 4), ("(nth 2 [4 5])", None),
    ("(last [1 2 3])", [3]), ("(last [])", []), ("(last [1 2 3] 2)", [2, 3]),
    ("(cons 0 [1 2])", [0, 1, 2]), ("(cons 0 None)", [0]),
    ("(append [1] None [2 3] [])", [1, 2, 3]), ("(append)", []),
    ("(null [])", True), ("(null None)", True), ("(null [None])", False), ('(null "")', False),
    ("(eq 'c 'C)", True), ("(eq 'C 'D)", False), ("(eq [1] [1])", False),
    ('(eq "C" "C")', True), ("(eq 3 3)", True), ("(eq 1 1.0)", False),
    ("(equal [1 [2 'a]] [1 [2 'A]])", True), ("(equal [1 2] [1 3])", False),
    ("(equal '(10 5) [10 5])", True),
    ("(member 'd ['C 'D 'C])", [Symbol("D"), Symbol("C")]),
    ("(member 3 [1 2])", None),
    ("(mapcar (fn [a b] (+ a b)) [1 2 3] [10 20])", [11, 22]),
    ("(mapcar abs [-1 2])", [1, 2]),
    ("(remove-if (fn [x] (> x 1)) [1 2 3])", [1]),
    ("(remove-if-not (fn [x] (> x 1)) [1 2 3])", [2, 3]),
    ("(count-if (fn [x] (> x 1)) [1 2 3])", 2),
    ("(length [1 2])", 2), ("(length None)", 0), ("(reverse [1 2 3])", [3, 2, 1]),
    ("(list* 1 2 [3 4])", [1, 2, 3, 4]), ("(list* [3])", [3]),
])
def test_each_function_answers_as_common_lisp_does(code, expected):
    assert hy_eval(code) == expected


def test_moves_in_hist_work_with_the_prelude():
    hist = [hist_pair("C", "D"), hist_pair("D", "D")]
    assert hy_eval("(mapcar second hist)", hist=hist) == ["D", "D"]
    assert hy_eval("(count-if (fn [m] (eq m 'd)) (mapcar cadr hist))", hist=hist) == 2
    assert hy_eval("(equal (car hist) '(C D))", hist=hist) is True
    assert hy_eval("(car (last hist))", hist=hist) == (D, D)
    assert hy_eval("(member 'C (mapcar car hist))", hist=hist) == [C, D]


def test_what_cl_would_reject_is_an_error_here_too():
    with pytest.raises(TypeError, match="dotted pairs"):
        hy_eval("(cons 1 2)")
    with pytest.raises(TypeError):
        hy_eval("(list*)")


lists = st.lists(st.integers(), max_size=8)


@given(st.integers(), lists)
def test_car_and_cdr_undo_cons(x, xs):
    assert cl.car(cl.cons(x, xs)) == x and cl.cdr(cl.cons(x, xs)) == xs


@given(lists, lists)
def test_append_reverse_and_last_agree_with_python(xs, ys):
    assert cl.append(xs, ys) == xs + ys and cl.length(cl.append(xs, ys)) == len(xs) + len(ys)
    assert cl.reverse(cl.reverse(xs)) == xs
    assert cl.last(xs) == xs[-1:]
    positive = lambda n: n > 0  # noqa: E731
    kept, dropped = cl.remove_if_not(positive, xs), cl.remove_if(positive, xs)
    assert sorted(kept + dropped) == sorted(xs) and cl.count_if(positive, xs) == len(kept)


@given(lists)
def test_the_prelude_never_changes_its_argument(xs):
    before = list(xs)
    for function in (cl.cdr, cl.cddr, cl.reverse, cl.last, lambda v: cl.cons(0, v),
                     lambda v: cl.append(v, v), lambda v: cl.member(0, v)):
        function(xs)
    assert xs == before


# The plain definitions the prelude's quick ones must agree with (lisp_bridge/cl.py takes
# quicker ways on the values agents pass every turn: moves, hist's pairs, ints).
def plain_eq(a, b):
    if isinstance(a, Symbol) and isinstance(b, Symbol):
        return str.__str__(a).upper() == str.__str__(b).upper()
    if isinstance(a, str) and isinstance(b, str):
        return str.__str__(a) == str.__str__(b)
    for kind in (int, float):
        if isinstance(a, kind) and isinstance(b, kind):
            return kind(a) == kind(b)
    if isinstance(a, hy.models.Keyword) and isinstance(b, hy.models.Keyword):
        return a == b
    return a is b


def plain_nth(n, xs):
    items = [] if xs is None else list(xs)
    return items[n] if 0 <= n < len(items) else None


class LoudStr(str):
    """A string that lies about its characters: eq must read the real ones."""

    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

    def upper(self):
        return "X"


NAN = float("nan")
atoms = st.one_of(
    st.sampled_from([C, D, Symbol("c"), Symbol("d"), Symbol("C"), "C", "c", "D", LoudStr("C"),
                     hy.models.Keyword("C"), hy.models.Keyword("c"), hy.models.Integer(3),
                     hy.models.String("C"), True, 1, 1.0, NAN, None, (), []]),
    st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=2))
sequences = st.one_of(st.none(), st.lists(atoms, max_size=4), st.tuples(atoms, atoms),
                      st.sampled_from([hist_pair(m, t) for m in "CD" for t in "CD"]))


@given(atoms, atoms)
def test_eq_answers_as_its_plain_definition(a, b):
    assert cl.eq(a, b) is plain_eq(a, b)
    assert cl.eq(a, a) is plain_eq(a, a)


@given(st.integers(-2, 5), sequences)
def test_nth_second_and_third_answer_as_their_plain_definition(n, xs):
    assert cl.nth(n, xs) is plain_nth(n, xs)
    assert cl.second(xs) is plain_nth(1, xs) and cl.third(xs) is plain_nth(2, xs)


@given(st.lists(atoms, max_size=6), st.lists(atoms, max_size=6))
def test_mapcar_and_count_if_answer_as_their_plain_definitions(xs, ys):
    is_c = lambda m: plain_eq(m, Symbol("c"))  # noqa: E731
    assert cl.count_if(is_c, xs) == sum(1 for item in xs if is_c(item))
    assert cl.mapcar(is_c, xs) == [is_c(item) for item in xs]
    assert cl.mapcar(cl.eq, xs, ys) == [plain_eq(x, y) for x, y in zip(xs, ys, strict=False)]
    assert cl.mapcar(is_c, tuple(xs)) == cl.mapcar(is_c, xs) and cl.mapcar(is_c, None) == []


def test_eq_of_an_object_that_only_claims_to_be_a_str_raises_as_it_always_did():
    """Its quick path must not answer where the plain definition raised: str.__eq__ gives
    NotImplemented (truthy) for an object whose __class__ lies."""
    class Liar:
        @property
        def __class__(self):
            return str

    with pytest.raises(TypeError):
        cl.eq("C", Liar())
    with pytest.raises(TypeError):
        cl.eq(Liar(), "C")
