"""Moves as Hy agents see them: equal to the quoted symbol 'C and to the string "C".

`hy.models.Symbol` compares by type, so a plain string fails `(= move 'C)` and a plain
symbol fails `(= move "C")`; real student code uses both. A subclass of Symbol that defines
equality and hashing itself wins both directions of `=` (Python asks the subclass first),
so one object can be both, and work with `in`, `.count`, as a dict key and in `match`.
A pair in hist is, the same way, a subclass of `hy.models.Expression` equal to any
sequence of equal moves: `(= (get hist -1) '(C D))`, `["C" "D"]` and `#('C 'D)` all hold.
Both print as Lisp data: `(hy.repr hist)` is `[(C D) (D D)]`.
"""
from __future__ import annotations

import hy
import hy.models


class Move(hy.models.Symbol):
    """C or D: equal to 'C, "C" and another Move C; prints as C."""

    def __eq__(self, other):
        if isinstance(other, str):  # Symbol, Move and str alike: compare the characters
            return str.__eq__(str(self), str.__str__(other))
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__     # hash("C"): the same key as the string and the symbol

    def __repr__(self):
        return str.__str__(self)

    # Moves are immutable and shared: a copy (`copy.deepcopy hist`) or a pickled round trip
    # must give the same Move back, not the plain Symbol that Symbol's own reduction makes
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return move_named, (str.__str__(self),)


class Pair(hy.models.Expression):
    """(mine theirs): equal to any list, tuple or quoted form of two equal moves."""

    def __eq__(self, other):
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__   # hash(("C", "D")): the same key as a tuple of strings

    def __repr__(self):
        return "(" + " ".join(map(repr, self)) + ")"

    __str__ = __repr__

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return Pair, (tuple(self),)


# from_parser=True: otherwise Symbol's constructor hands back a plain Symbol, not a Move
C, D = Move("C", from_parser=True), Move("D", from_parser=True)
_MOVES = {"C": C, "D": D}
_PAIRS = {(m, t): Pair((_MOVES[m], _MOVES[t])) for m in "CD" for t in "CD"}


def _install_move_printer() -> None:
    """`hy.repr` quotes any model it meets outside a quoted form ('C), and a Move must be a
    model to compare equal to 'C; so hy.repr itself is wrapped to print moves and pairs
    bare, at the top and inside containers (its recursive calls go through the module's
    global)."""
    import hy.core.hy_repr as printer

    if getattr(printer.hy_repr, "prints_moves", False):
        return
    original = printer.hy_repr

    def hy_repr(obj):
        if type(obj) is Move:
            return str.__str__(obj)
        if type(obj) is Pair:
            return repr(obj)
        return original(obj)

    hy_repr.prints_moves = True  # type: ignore[attr-defined]  # a mark read by getattr
    hy_repr.__doc__ = original.__doc__
    printer.hy_repr = hy.repr = hy_repr


_install_move_printer()


def move_named(letter: str) -> Move:
    return _MOVES[letter]


def hist_pair(mine: str, theirs: str):
    """A played move pair as Hy agents see it in hist: a Pair of two Moves (shared)."""
    return _PAIRS[mine, theirs]


def move_from_hy(item):
    """C/D for a Hy keyword (`:C`, `:d`); None when the item is no move at all."""
    if isinstance(item, hy.models.Keyword):
        name = item.name
        return {"C": "C", "D": "D", "c": "C", "d": "D"}.get(name)
    return None


def from_hy(value):
    """Plain Python values for Hy's quoted data: `'(.25 .1)` -> [0.25, 0.1], `'random` ->
    "random"; anything that is no Hy model (a function, a path) is left as it is."""
    if not isinstance(value, hy.models.Object):
        if type(value) in (list, tuple):
            return type(value)(from_hy(item) for item in value)
        return value
    if isinstance(value, hy.models.Sequence):
        return [from_hy(item) for item in value]
    if isinstance(value, hy.models.Keyword):
        return value.name
    for plain in (str, bool, int, float, complex, bytes):
        if isinstance(value, plain):
            return plain(value)  # type: ignore[arg-type]  # value is a `plain`
    return value


def register_standings_printer(standings_type) -> None:
    """`(hy.repr (monitor ...))` prints the Lisp answer: ((name score) ...)."""
    hy.repr_register(standings_type, lambda standings: "(" + " ".join(
        f"({name} {score})" for name, score in standings) + ")")
