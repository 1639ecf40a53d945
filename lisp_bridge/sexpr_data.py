"""Common Lisp data as lisp_bridge/sexpr.py reads it into Python, and the numbers a token
spells (converted in linear time, or kept as written).

Lisp data in Python:
- proper list -> list; `()` -> []; `'x` -> [QUOTE, x]; `#'f` -> [FUNCTION, f];
  `` `x `` -> [QUASIQUOTE, x]; `,x` -> [UNQUOTE, x]; `,@x` -> [UNQUOTE-SPLICING, x]
- `(a b . c)` -> Dotted((a, b), c)
- symbol -> Symbol; integer -> int; ratio -> Fraction; float -> float; `#c(1 2)` -> complex
- string -> str; character -> Char; a number or form read over -> Unconverted
- `#(a b)` -> [VECTOR, a, b]; `#*101` -> [BIT-VECTOR, 1, 0, 1]; `#p"x"` -> [PATHNAME, "x"];
  `#2a((1 2))` -> [ARRAY, 2, ((1 2))]; `#s(point :x 1)` -> [STRUCTURE, [point, :x, 1]]
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

MAX_DEPTH = 100    # deeper forms are read over flat (Unconverted), never by recursion
MAX_DIGITS = 1000  # longer numbers are kept as written (Unconverted)


class LispSyntaxError(ValueError):
    """Unreadable Lisp text. `message` is one line; str() puts the line and column first."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"line {line}, column {column}: {message}")
        self.message, self.line, self.column = message, line, column


@dataclass(frozen=True)
class Symbol:
    """A symbol: `name` as CL interns it (upper case unless escaped), `text` as written.

    Two symbols are equal when their names and packages are: `khosmoodlevinson` and
    `KhosmoodLevinson` are the same symbol, as in CL. `package` is None for an unqualified
    symbol, "KEYWORD" for `:key`, "#" for an uninterned `#:sym`, else the prefix upper-cased.
    """

    name: str
    text: str = ""
    package: str | None = None

    def __post_init__(self):
        if not self.text:
            object.__setattr__(self, "text", self.name)

    def __eq__(self, other):
        return isinstance(other, Symbol) and (other.name, other.package) == (
            self.name, self.package)

    def __hash__(self):
        return hash((self.name, self.package))

    def __repr__(self):
        return f"Symbol({self.text!r})"


def symbol(text: str) -> Symbol:
    """The symbol an unescaped token TEXT reads as: `symbol('titfortat').name == 'TITFORTAT'`."""
    return Symbol(text.upper(), text)


def keyword(text: str) -> Symbol:
    return Symbol(text.upper(), text, "KEYWORD")


@dataclass(frozen=True)
class Char:
    """A character object, `#\\C`."""

    value: str


@dataclass(frozen=True)
class Dotted:
    """An improper list `(a b . c)`: the items and the final cdr (never a list itself)."""

    items: tuple
    tail: object


@dataclass(frozen=True)
class Unconverted:
    """Something read but not interpreted: a number too long to convert in linear time, a
    complex beyond float range, or a form nested deeper than MAX_DEPTH. `what` says which;
    `text` is the number as written (empty for a form)."""

    what: str
    text: str = ""

    def __repr__(self):
        shown = self.text if len(self.text) <= 20 else self.text[:20] + "..."
        return f"<{self.what}{' ' + shown if shown else ''}>"


@dataclass(frozen=True)
class Located:
    """A top-level form and where it starts (1-based line and column)."""

    form: object
    line: int
    column: int


QUOTE, FUNCTION = Symbol("QUOTE"), Symbol("FUNCTION")
QUASIQUOTE, UNQUOTE, UNQUOTE_SPLICING = (Symbol("QUASIQUOTE"), Symbol("UNQUOTE"),
                                         Symbol("UNQUOTE-SPLICING"))
VECTOR, BIT_VECTOR, PATHNAME, ARRAY, STRUCTURE = (
    Symbol("VECTOR"), Symbol("BIT-VECTOR"), Symbol("PATHNAME"), Symbol("ARRAY"),
    Symbol("STRUCTURE"))
NIL = Symbol("NIL")

CHAR_NAMES = {"SPACE": " ", "NEWLINE": "\n", "TAB": "\t", "RETURN": "\r",
               "LINEFEED": "\n", "PAGE": "\f", "BACKSPACE": "\b", "RUBOUT": "\x7f",
               "NUL": "\0", "NULL": "\0", "ESCAPE": "\x1b", "ESC": "\x1b", "BELL": "\a"}
CHAR_PRINT_NAMES = {" ": "Space", "\n": "Newline", "\t": "Tab", "\r": "Return",
                     "\f": "Page", "\b": "Backspace", "\x7f": "Rubout", "\0": "Null",
                     "\x1b": "Escape", "\a": "Bell", "\v": "Vt"}
CHAR_NAMES["VT"] = "\v"
# features of SBCL on 64-bit Linux, for #+ and #-
FEATURES = frozenset({"SBCL", "COMMON-LISP", "ANSI-CL", "LINUX", "UNIX", "X86-64", "64-BIT",
                      "LITTLE-ENDIAN", "IEEE-FLOATING-POINT", "ELF", "GENCGC", "SB-UNICODE",
                      "SB-THREAD", "SB-PACKAGE-LOCKS", "SB-LDB", "SB-DOC", "SB-CORE-COMPRESSION"})

# CL's potential numbers in base 10 (a token is classified, never parsed structurally)
INTEGER = re.compile(r"[+-]?\d+\.?")
RATIO = re.compile(r"[+-]?\d+/\d+")
FLOAT = re.compile(r"[+-]?(\d*\.\d+([esfdl][+-]?\d+)?|\d+(\.\d*)?[esfdl][+-]?\d+)")


def is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text)


def is_real(value) -> bool:
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


def ratio(numerator: int, denominator: int):
    value = Fraction(numerator, denominator)
    return value.numerator if value.denominator == 1 else value


def token_number(token: str):
    """The number TOKEN (already upper-cased) spells in base 10, or None for a symbol."""
    text = token.lower()
    if len(text) > MAX_DIGITS and text[:1] in "+-.0123456789" and (
            INTEGER.fullmatch(text) or RATIO.fullmatch(text) or FLOAT.fullmatch(text)):
        return Unconverted("number", token)
    if INTEGER.fullmatch(text):
        return int(text.rstrip("."))  # `10.` is an integer in CL
    if RATIO.fullmatch(text):
        numerator, denominator = text.split("/")
        if int(denominator) == 0:
            raise ZeroDivisionError("a ratio with a zero denominator")
        return ratio(int(numerator), int(denominator))
    if FLOAT.fullmatch(text):
        value = float(re.sub("[sfdl]", "e", text))  # 1.5d0: CL's exponent markers
        if not math.isfinite(value):
            raise OverflowError("a float too large to represent")
        return value
    return None


def is_unconverted_number(value) -> bool:
    return isinstance(value, Unconverted) and value.what == "number"

def short(text: str, limit: int = 60) -> str:
    """TEXT cut to LIMIT characters for a message (a token may be a megabyte long)."""
    return text if len(text) <= limit else text[:limit] + "..."
