"""A Common Lisp prelude for Hy agents: `(import lisp_bridge.cl *)`.

For teams porting a Lisp agent: the list vocabulary of CL with Lisp semantics on Python
sequences. `nil` is Python's None or an empty list; functions return Python lists.
Differences from CL, each on purpose:
- lists are Python lists, not cons cells: `cons` and `cdr` copy (O(n)), and there are no
  dotted pairs (`(cons 1 2)` is an error);
- `eq` compares symbols by name ignoring case, as CL's reader upcases `'c` to `C`, so
  `(eq move 'c)` holds for the move C; strings by their characters (a move equals "C");
  integers, and floats, by value (CL leaves that unspecified); the rest by identity;
- `equal` is `eq` on atoms and compares lists and tuples element by element;
- `member`, `remove-if` & co. take no :key/:test keywords (`member` uses `eq`);
- `length` works on any sized Python object; `null` is true only for None and empty lists
  or tuples (an empty string is not nil, as in CL).
Nothing here shadows a Python builtin: `list`, `len`, `reversed` etc. stay Python's.
`(require lisp_bridge.cl :readers *)` enables CL's `#'name` (read as `name`).
"""
from __future__ import annotations

import hy.models

# Agents call these on every turn, on every move of the history (KimLopez.hy: ~70,000 calls
# of `eq` a class tournament): each takes its quickest way on the values agents pass (moves,
# hist's pairs, plain lists and tuples, ints) and the general one otherwise, with the same
# answer (tests/test_hy_cl.py holds them to the plain definitions).
_Symbol, _Keyword = hy.models.Symbol, hy.models.Keyword
_str_eq, _str_upper = str.__eq__, str.upper

__all__ = ["car", "cdr", "cadr", "cddr", "first", "second", "third", "nth", "last",
           "cons", "append", "null", "eq", "equal", "member", "mapcar", "remove_if",
           "remove_if_not", "count_if", "length", "reverse", "hyx_listXasteriskX"]


def _items(xs):
    return [] if xs is None else list(xs)


def car(xs):
    """The first element; `(car [])` and `(car None)` are None, as (car nil) is nil."""
    items = _items(xs)
    return items[0] if items else None


def cdr(xs):
    """Everything but the first element, as a new list; [] for an empty list."""
    return _items(xs)[1:]


def cadr(xs):
    return car(cdr(xs))


def cddr(xs):
    return cdr(cdr(xs))


first = car


def second(xs):
    """`(nth 1 xs)`, written out: `(mapcar #'second hist)` calls it on every pair."""
    items = [] if xs is None else list(xs)
    return items[1] if len(items) > 1 else None


def third(xs):
    return nth(2, xs)


def nth(n, xs):
    """The n-th element counting from 0 (CL's argument order), None past the end."""
    items = [] if xs is None else list(xs)
    return items[n] if 0 <= n < len(items) else None


def last(xs, n=1):
    """A list of the last n elements (CL returns the last cons: (last '(1 2 3)) is (3))."""
    items = _items(xs)
    return items[-n:] if n > 0 else []


def cons(x, xs):
    """A new list with x in front of xs (there are no dotted pairs: xs must be a list)."""
    if xs is not None and not isinstance(xs, (list, tuple)):
        raise TypeError(f"cons needs a list as its second argument, not {xs!r} "
                        "(this prelude has no dotted pairs)")
    return [x, *_items(xs)]


def append(*lists):
    """One new list of all the lists' elements."""
    return [item for xs in lists for item in _items(xs)]


def null(x):
    """True for nil: None or an empty list or tuple."""
    return x is None or (isinstance(x, (list, tuple)) and len(x) == 0)


def eq(a, b):
    """CL's eq/eql for Hy values: symbols by name ignoring case (the CL reader upcases),
    strings by their characters, numbers of one type by value, the rest by identity."""
    if isinstance(a, str) and isinstance(b, str):   # symbols (and moves) are strings too
        if isinstance(a, _Symbol) and isinstance(b, _Symbol):
            return _str_upper(a) == _str_upper(b)
        same = _str_eq(a, b)
        if same is NotImplemented:   # one only claims to be a str (its __class__ lies)
            return str.__str__(a) == str.__str__(b)   # which raises, as it always did
        return same
    return _eq_other(a, b)


def _eq_other(a, b):
    """`eq` of two values that are not both strings."""
    for kind in (int, float):  # quoted numbers are hy Integers, which compare by type
        if isinstance(a, kind) and isinstance(b, kind):
            return kind(a) == kind(b)
    if isinstance(a, _Keyword) and isinstance(b, _Keyword):
        return a == b
    return a is b


def equal(a, b):
    """Structural equality: lists and tuples (hist pairs, quoted forms) element by element,
    atoms as `eq`: `(equal (car hist) '(C D))`."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    return eq(a, b)


def member(x, xs):
    """The tail of xs starting at the first element `eq` to x, or None."""
    items = _items(xs)
    for index, item in enumerate(items):
        if eq(x, item):
            return items[index:]
    return None


def mapcar(function, *lists):
    """function applied to the lists' elements in step, until the shortest ends."""
    if len(lists) == 1:
        return list(map(function, _items(lists[0])))
    return [function(*args) for args in zip(*(_items(xs) for xs in lists), strict=False)]


def remove_if(test, xs):
    return [item for item in _items(xs) if not test(item)]


def remove_if_not(test, xs):
    return [item for item in _items(xs) if test(item)]


def count_if(test, xs):
    count = 0
    for item in _items(xs):
        if test(item):
            count += 1
    return count


def length(xs):
    return 0 if xs is None else len(xs)


def reverse(xs):
    return _items(xs)[::-1]


def hyx_listXasteriskX(*args):
    """`list*`: the arguments, the last of which is a list, spliced: (list* 1 2 [3 4])."""
    if not args:
        raise TypeError("list* needs at least one argument")
    *front, tail = args
    return [*front, *_items(tail)]


def _function_quote(reader, _key):
    """`#'name` reads as `name`: in a quoted list a symbol naming an agent, elsewhere the
    function itself, as CL's (function name) is."""
    return reader.parse_one_form()


# `(require lisp_bridge.cl :readers *)` enables #' (Hy has no such syntax of its own)
_hy_reader_macros = {"'": _function_quote}
