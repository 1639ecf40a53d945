"""A Common Lisp prelude for Hy agents: `(import lisp_bridge.cl *)`.

For teams porting a Lisp agent: the list vocabulary of CL with Lisp semantics on Python
sequences. `nil` is Python's None or an empty list; functions return Python lists.
Differences from CL, each on purpose:
- lists are Python lists, not cons cells: `cons` and `cdr` copy (O(n)), and there are no
  dotted pairs (`(cons 1 2)` is an error);
- `eq` is Python's `is` except that moves and symbols compare by name, as interned symbols
  would in CL; `equal` is `=`;
- `member`, `remove-if` & co. take no :key/:test keywords;
- `length` works on any sized Python object.
Nothing here shadows a Python builtin: `list`, `len`, `reversed` etc. stay Python's.
"""
from __future__ import annotations

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
    return nth(1, xs)


def third(xs):
    return nth(2, xs)


def nth(n, xs):
    """The n-th element counting from 0 (CL's argument order), None past the end."""
    items = _items(xs)
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
    """True for nil: None or an empty sequence."""
    return x is None or (hasattr(x, "__len__") and len(x) == 0)


def eq(a, b):
    """Identity, except that strings and symbols (so moves) compare by name, as interned
    symbols do in CL, and small integers compare by value (CL leaves that unspecified)."""
    if isinstance(a, str) and isinstance(b, str):
        return str.__str__(a) == str.__str__(b)
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return a is b


def equal(a, b):
    """Structural equality: `=` on Python values (lists and tuples of moves included)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return a == b


def member(x, xs):
    """The tail of xs starting at the first element eql to x, or None."""
    items = _items(xs)
    for index, item in enumerate(items):
        if eq(x, item) or item == x:
            return items[index:]
    return None


def mapcar(function, *lists):
    """function applied to the lists' elements in step, until the shortest ends."""
    return [function(*args) for args in zip(*(_items(xs) for xs in lists))]


def remove_if(test, xs):
    return [item for item in _items(xs) if not test(item)]


def remove_if_not(test, xs):
    return [item for item in _items(xs) if test(item)]


def count_if(test, xs):
    return sum(1 for item in _items(xs) if test(item))


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
