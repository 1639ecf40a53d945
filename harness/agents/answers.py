"""Turning whatever an agent returned into a canonical move string, in the agent's process.

An answer is valid when it is a sequence of exactly `moves_per_turn` moves, each C or D.
Accepted spellings (docs/rules.md, "Misbehaving agents"): the symbol, string or character C or D in either case;
anything but an upper-case symbol or string is accepted with a warning. Nothing about
the answer is trusted: a str subclass is read through `str`'s own methods, so overriding
`__eq__` or `__str__` cannot make one object count as both C and D, and an iterable is read
at most one item past the expected length.
"""
from __future__ import annotations

from itertools import islice

from harness.core.counts import counted

_EXACT = {"C": "C", "D": "D"}
_LOWER = {"c": "C", "d": "D"}


class InvalidAnswer(Exception):
    """The agent's answer is not `moves_per_turn` moves of C or D; the message says why."""


def describe(value, limit: int = 80, lisp: bool = False) -> str:
    """A short, safe description of an agent's value (never calls the agent's __repr__),
    in Python's syntax or, with `lisp` (a Hy agent's), in Hy's: `["C" "D"]`, `#("C")`."""
    text = _known_text(value, lisp)
    if text is None and type(value) in (list, tuple) and len(value) <= 8:
        items = [_known_text(v, lisp) for v in value]
        known = [item for item in items if item is not None]
        if len(known) == len(items):
            if lisp:
                text = " ".join(known)
                text = f"[{text}]" if type(value) is list else f"#({text})"
            else:
                text = ", ".join(known) + ("," if len(known) == 1 and type(value) is tuple
                                           else "")
                text = f"[{text}]" if type(value) is list else f"({text})"
    if text is None:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_describe = describe  # under its own name where a parameter shadows it


def _known_text(value, lisp: bool = False) -> str | None:
    """How a value of a type we know exactly prints; None for anything else."""
    if lisp and type(value) is str:  # Hy's string syntax: double quotes, backslash escapes
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if type(value) in (str, int, float, bool, type(None)):
        return repr(value)
    from .lang import LANGUAGES  # the languages (50 modules), only for a value they spell

    return next((text for language in LANGUAGES.values()
                 if (text := language.describe_value(value)) is not None), None)


def _move(item, lisp: bool = False) -> tuple[str, bool]:
    """(canonical move, spelled canonically?) or InvalidAnswer."""
    if isinstance(item, str):
        text = str.__str__(item)  # the underlying characters, whatever the subclass says
        if text in _EXACT:
            return _EXACT[text], True
        if text in _LOWER:
            return _LOWER[text], False
        shown = item if _known_text(item, lisp) is not None else text  # a Hy symbol as 'X
        raise InvalidAnswer(f"{describe(shown, lisp=lisp)} is not a move (C or D)")
    spelled = _other_spelling(item)
    if spelled is not None:
        return spelled, False
    raise InvalidAnswer(f"{describe(item, lisp=lisp)} is not a move (C or D)")


def _other_spelling(item):
    """A move only a language's values spell (a Hy keyword `:C`), or None."""
    from .lang import LANGUAGES  # the languages (50 modules), only for a value they spell

    return next((move for language in LANGUAGES.values()
                 if (move := language.spelled_move(item)) is not None), None)


def normalize(answer, moves_per_turn: int, lisp: bool = False) -> tuple[str, str | None]:
    """The canonical move string and a warning (or None) for a valid answer; what is wrong
    quotes the answer in the agent's own syntax (`lisp`: a Hy agent's)."""
    if type(answer) in _LIST_OR_TUPLE and len(answer) == moves_per_turn:
        # the quick way of every well-behaved agent: a list or tuple of the strings "C"
        # and "D" (a Python agent's), or of strings of another type (a Hy agent's symbols
        # 'C, hist's moves) whose own characters are; each item read as _move reads it, by
        # str's own methods, and the answer is then canonical (no warning)
        for move in answer:
            if type(move) is not str:
                if not isinstance(move, str) or str.__str__(move) not in _EXACT:
                    break
            elif move not in _EXACT:
                break
        else:
            return "".join(answer), None   # join reads a str subclass's own characters
    return _normalize_slowly(answer, moves_per_turn, lisp)


_LIST_OR_TUPLE = (list, tuple)   # exactly these types: their items are what iterating gives


def _normalize_slowly(answer, moves_per_turn: int, lisp: bool) -> tuple[str, str | None]:
    def describe(value, limit: int = 80) -> str:
        return _describe(value, limit, lisp)

    if answer is None:
        raise InvalidAnswer("returned nothing (None)")
    if isinstance(answer, (bytes, bytearray, dict, set, frozenset, int, float)):
        raise InvalidAnswer(f"returned {describe(answer)}, not a list of "
                            f"{counted(moves_per_turn, 'move')}")
    try:
        items = list(islice(iter(answer), moves_per_turn + 1))
    except Exception as error:  # an iterable that raises is the agent's fault, not ours
        raise InvalidAnswer(
            f"returned {describe(answer)} that fails when read: {type(error).__name__}") from error
    if len(items) != moves_per_turn:
        count = (counted(len(items), "move") if len(items) <= moves_per_turn
                 else f"more than {counted(moves_per_turn, 'move')}")
        raise InvalidAnswer(f"returned {count} ({describe(answer)}), expected {moves_per_turn}")
    try:
        moves, canonical = zip(*(_move(item, lisp) for item in items), strict=True)
    except InvalidAnswer as error:  # quote the whole answer, as the SBCL host does
        raise InvalidAnswer(f"{error} in {describe(answer)}") from None
    return "".join(moves), _spelling_warning(answer, items, canonical, lisp)


def _spelling_warning(answer, items, canonical, lisp: bool) -> str | None:
    """What is non-canonical about a valid answer, said exactly: one string for a list of
    moves, or which moves are not upper-case C or D (lower case, keywords, ...)."""
    if isinstance(answer, str):
        wanted = _describe([str.__str__(item).upper() for item in items], 80, lisp)
        return (f"answer {_describe(answer, 80, lisp)} is one string, not a list of moves; "
                f"return a list: {wanted}")
    odd = list(dict.fromkeys(_describe(item, 20, lisp)
                             for item, fine in zip(items, canonical, strict=True) if not fine))
    if not odd:
        return None
    return (f"answer {_describe(answer, 80, lisp)} spells {', '.join(odd)} non-canonically; "
            "write upper-case C and D")
