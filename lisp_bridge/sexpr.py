"""Common Lisp s-expressions: a reader and a printer (never an evaluator).

The reader follows the CL reader's rules for what agent files and the original monitor call
contain: lists and dotted pairs, symbols (unescaped characters upper-cased as CL interns
them, the spelling kept for messages), package prefixes and keywords, numbers (integers,
decimals, ratios, exponent markers, radixes), strings, characters, quote, #', backquote and
comma, `;` and nested `#| |#` comments, `#+`/`#-` feature expressions (with the features of
the SBCL that will load the file, when the caller passes them; else those of SBCL on Linux),
and the other standard `#` syntaxes. `#.` (read-time evaluation) is refused, and no other
code runs: a reader macro the text defines for itself is unknown syntax here. Every error
is a `LispSyntaxError` naming its line and column.

Reading is total and linear in the length of the text: nothing but `LispSyntaxError` leaves
it, and nothing is converted at a cost above linear. A number longer than MAX_DIGITS (CPython
converts long decimals in quadratic time) or a complex beyond float range is kept
`Unconverted`, as is a form nested deeper than MAX_DEPTH (read over by its brackets alone,
without recursion: SBCL loads such code, so it is not an error).

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

import bisect
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

WHITESPACE = " \t\r\n\f\v"
# characters that end a token (CL's whitespace and terminating macro characters)
_TERMINATORS = frozenset("()'\";`," + WHITESPACE)
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

_CHAR_NAMES = {"SPACE": " ", "NEWLINE": "\n", "TAB": "\t", "RETURN": "\r",
               "LINEFEED": "\n", "PAGE": "\f", "BACKSPACE": "\b", "RUBOUT": "\x7f",
               "NUL": "\0", "NULL": "\0", "ESCAPE": "\x1b", "ESC": "\x1b", "BELL": "\a"}
_CHAR_PRINT_NAMES = {" ": "Space", "\n": "Newline", "\t": "Tab", "\r": "Return",
                     "\f": "Page", "\b": "Backspace", "\x7f": "Rubout", "\0": "Null",
                     "\x1b": "Escape", "\a": "Bell", "\v": "Vt"}
_CHAR_NAMES["VT"] = "\v"
# features of SBCL on 64-bit Linux, for #+ and #-
FEATURES = frozenset({"SBCL", "COMMON-LISP", "ANSI-CL", "LINUX", "UNIX", "X86-64", "64-BIT",
                      "LITTLE-ENDIAN", "IEEE-FLOATING-POINT", "ELF", "GENCGC", "SB-UNICODE",
                      "SB-THREAD", "SB-PACKAGE-LOCKS", "SB-LDB", "SB-DOC", "SB-CORE-COMPRESSION"})

# CL's potential numbers in base 10 (a token is classified, never parsed structurally)
_INTEGER = re.compile(r"[+-]?\d+\.?")
_RATIO = re.compile(r"[+-]?\d+/\d+")
_FLOAT = re.compile(r"[+-]?(\d*\.\d+([esfdl][+-]?\d+)?|\d+(\.\d*)?[esfdl][+-]?\d+)")

_END = object()      # no more forms (end of text, or a ')' that closes the open list)
_SKIPPED = object()  # a #+/#- expression whose feature test failed: reads as nothing


class _Reader:
    def __init__(self, text: str, features=FEATURES):
        self.text = text
        self.features = features
        self.pos = 0
        self.depth = 0
        self.lists_open = 0
        self.outermost_open = 0  # where the outermost unclosed '(' is
        self.suppress = 0        # > 0 while reading a form a #+/#- test dropped
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]

    # -- positions ----------------------------------------------------------------------
    def where(self, pos: int | None = None) -> tuple[int, int]:
        pos = self.pos if pos is None else pos
        before = bisect.bisect_left(self.newlines, pos)
        line_start = self.newlines[before - 1] + 1 if before else 0
        return before + 1, pos - line_start + 1

    def error(self, message: str, pos: int | None = None) -> LispSyntaxError:
        return LispSyntaxError(message, *self.where(pos))

    def peek(self, ahead: int = 0) -> str:
        at = self.pos + ahead
        return self.text[at] if at < len(self.text) else ""

    # -- skipping -----------------------------------------------------------------------
    def skip_blank(self) -> None:
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c in WHITESPACE:
                self.pos += 1
            elif c == ";":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end + 1
            elif text.startswith("#|", self.pos):
                self.skip_block_comment()
            else:
                return

    def skip_block_comment(self) -> None:
        start, depth = self.pos, 0
        while self.pos < len(self.text):
            if self.text.startswith("#|", self.pos):
                depth, self.pos = depth + 1, self.pos + 2
            elif self.text.startswith("|#", self.pos):
                depth, self.pos = depth - 1, self.pos + 2
                if depth == 0:
                    return
            else:
                self.pos += 1
        raise self.error("unterminated #| block comment: no matching |#", start)

    # -- forms --------------------------------------------------------------------------
    def next_form(self, inside_list: bool = False):
        """The next form, reading past any that a feature expression dropped."""
        while True:
            form = self.form(inside_list)
            if form is not _SKIPPED:
                return form

    def form(self, inside_list: bool = False):
        self.skip_blank()
        c = self.peek()
        if not c:
            return _END
        if c == ")":
            if inside_list:
                return _END
            raise self.error("unexpected ')' with no '(' to close")
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                return self.nested_too_deep()
            if c == "(":
                self.pos += 1
                return self.list_rest()
            if c == "'":
                return self.prefixed(QUOTE, "'")
            if c == "`":
                return self.prefixed(QUASIQUOTE, "`")
            if c == ",":
                if self.peek(1) == "@":
                    self.pos += 1
                    return self.prefixed(UNQUOTE_SPLICING, ",@")
                return self.prefixed(UNQUOTE, ",")
            if c == '"':
                return self.string()
            if c == "#":
                return self.dispatch()
            return self.atom()
        finally:
            self.depth -= 1

    def prefixed(self, head: Symbol, mark: str):
        start = self.pos
        self.pos += 1
        inner = self.next_form(inside_list=True)
        if inner is _END:
            raise self.error(f"nothing after {mark}", start)
        return [head, inner]

    def list_rest(self):
        """The rest of a list whose '(' was just read."""
        if self.lists_open == 0:
            self.outermost_open = self.pos - 1
        self.lists_open += 1
        try:
            return self.list_items()
        finally:
            self.lists_open -= 1

    def list_items(self):
        items: list = []
        while True:
            self.skip_blank()
            if not self.peek():
                # the outermost open form is where the missing ')' belongs, usually
                raise self.error("unbalanced parentheses: this '(' is never closed",
                                 self.outermost_open)
            if self.peek() == ")":
                self.pos += 1
                return items
            if self.peek() == "." and self.peek(1) in _TERMINATORS | {""}:
                return self.dotted_rest(items)
            item = self.form(inside_list=True)
            if item is not _SKIPPED:
                items.append(item)

    def dotted_rest(self, items):
        dot = self.pos
        self.pos += 1
        if not items:
            raise self.error("a dot with nothing before it", dot)
        tail = self.next_form(inside_list=True)
        self.skip_blank()
        if tail is _END or self.peek() != ")":
            raise self.error("a dotted list needs exactly one form after the dot", dot)
        self.pos += 1
        # (a . (b c)) is the list (a b c), and (a . nil) is (a), as in CL
        if isinstance(tail, list):
            return items + tail
        if isinstance(tail, Dotted):
            return Dotted(tuple(items) + tail.items, tail.tail)
        if tail == NIL:
            return items
        return Dotted(tuple(items), tail)

    def string(self):
        start = self.pos
        self.pos += 1
        out = []
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c == "\\":
                self.pos += 1
                if self.pos >= len(text):
                    break
                out.append(text[self.pos])
            elif c == '"':
                self.pos += 1
                return "".join(out)
            else:
                out.append(c)
            self.pos += 1
        raise self.error("unterminated string: no closing '\"'", start)

    # -- # syntaxes ---------------------------------------------------------------------
    def dispatch(self):
        start = self.pos
        self.pos += 1
        digits_at = self.pos
        while self.peek().isdigit():
            self.pos += 1
        digits = self.text[digits_at:self.pos]
        argument = int(digits) if digits and len(digits) <= 18 else (
            None if not digits else 10 ** 18)  # #<huge>a: a rank no one can make
        c = self.peek()
        if not c:
            raise self.error("# at the end of the input", start)
        handler = _DISPATCH.get(c.lower())
        if handler is None:
            if c in WHITESPACE or c == ")":
                raise self.error(f"# followed by {c!r} is not Lisp syntax", start)
            raise self.error(f"unknown dispatch macro #{c}", start)
        self.pos += 1
        return handler(self, start, argument)

    def function(self, start, _argument):
        inner = self.next_form(inside_list=True)
        if inner is _END:
            raise self.error("nothing after #'", start)
        return [FUNCTION, inner]

    def character(self, start, _argument):
        if self.pos >= len(self.text):
            raise self.error("#\\ with no character", start)
        begin = self.pos
        self.pos += 1  # the first character is taken whatever it is
        while self.peek() and self.peek() not in _TERMINATORS:
            self.pos += 1
        name = self.text[begin:self.pos]
        if len(name) == 1:
            return Char(name)
        if name.upper() in _CHAR_NAMES:
            return Char(_CHAR_NAMES[name.upper()])
        code = name[1:].lstrip("+")
        if name[0] in "uU" and _is_hex(code) and int(code, 16) < 0x110000:
            return Char(chr(int(code, 16)))  # SBCL's #\U+41 style names
        if self.suppress:
            return Char(name[0])
        raise self.error(f"unknown character name #\\{short(name)}", start)

    def vector(self, start, _argument):
        return [VECTOR, *self.list_rest()]

    def feature_expression(self, start, _argument):
        """#+feature form / #-feature form: kept or dropped as for SBCL on Linux."""
        sign = self.text[self.pos - 1]
        feature = self.next_form(inside_list=True)
        if feature is _END:
            raise self.error(f"#{sign} needs a feature expression and a form", start)
        keep = self.has_feature(feature, start) == (sign == "+")
        if not keep:
            self.suppress += 1
        try:
            form = self.next_form(inside_list=True)
        finally:
            if not keep:
                self.suppress -= 1
        if form is _END:
            raise self.error(f"#{sign} needs a form after its feature expression", start)
        return form if keep else _SKIPPED

    def has_feature(self, feature, start) -> bool:
        if self.suppress:
            return False  # inside a dropped form SBCL does not test it (*read-suppress*)
        try:
            return has_feature(feature, self.features)
        except UnknownFeatureExpression as error:
            raise self.error(f"unknown feature expression {error} (SBCL refuses it: write "
                             "a feature, or (and ...), (or ...), (not ...) of features)",
                             start) from error

    def read_eval(self, start, _argument):
        if self.suppress:  # inside a dropped #+/#- form: read over it, never evaluate
            self.next_form(inside_list=True)
            return NIL
        raise self.error("#. (read-time evaluation) is not allowed", start)

    def radix(self, start, argument):
        base = {"b": 2, "o": 8, "x": 16}.get(self.text[self.pos - 1].lower(), argument)
        if base is None or not 2 <= base <= 36:
            raise self.error("#r needs a radix from 2 to 36, like #3r12", start)
        chars, _escaped, _colons = self.token()
        token = "".join(chars)
        if len(token) > MAX_DIGITS and base & (base - 1):  # (bases 2, 4, 8... are linear)
            return Unconverted(f"number in base {base}", token)
        try:
            if "/" in token:
                numerator, denominator = token.split("/")
                return _ratio(int(numerator, base), int(denominator, base))
            if token.lstrip("+-").isalnum():
                return int(token, base)
        except (ValueError, ZeroDivisionError):
            pass
        if self.suppress:
            return 0
        raise self.error(f"bad number in base {base}: {short(token)!r}", start)

    def uninterned(self, start, _argument):
        chars, escaped, _colons = self.token()
        raw = self.text[start + 2:self.pos]
        return Symbol("".join(chars), raw, "#")

    def complex_number(self, start, _argument):
        parts = self.next_form(inside_list=True)
        if (isinstance(parts, list) and len(parts) == 2
                and all(_is_real(part) or _is_unconverted_number(part) for part in parts)):
            try:
                return complex(float(parts[0]), float(parts[1]))
            except (OverflowError, TypeError):  # SBCL keeps #c(<400 nines> 1) exact
                return Unconverted("complex number", self.text[start:self.pos])
        if self.suppress:
            return NIL
        raise self.error("#c needs two real numbers, like #c(1 2)", start)

    def pathname(self, start, _argument):
        name = self.next_form(inside_list=True)
        if not isinstance(name, str):
            raise self.error('#p needs a string, like #p"file.lisp"', start)
        return [PATHNAME, name]

    def bit_vector(self, start, _argument):
        chars, _escaped, _colons = self.token()
        if any(c not in "01" for c in chars):
            raise self.error("#* needs only 0s and 1s, like #*1011", start)
        return [BIT_VECTOR, *(int(c) for c in chars)]

    def array(self, start, argument):
        contents = self.next_form(inside_list=True)
        if argument is None or contents is _END:
            raise self.error("#a needs a rank and contents, like #2a((1 2) (3 4))", start)
        return [ARRAY, argument, contents]

    def structure(self, start, _argument):
        contents = self.next_form(inside_list=True)
        if not (isinstance(contents, list) and contents):
            raise self.error("#s needs a list, like #s(point :x 1)", start)
        return [STRUCTURE, contents]

    def unsupported(self, start, _argument):
        c = self.text[self.pos - 1]
        what = {"<": "#< starts an unreadable object",
                "=": "#n= labels are not supported", "#": "#n# labels are not supported"}
        raise self.error(what.get(c, f"unknown dispatch macro #{c}"), start)

    # -- too deep to recurse ------------------------------------------------------------
    def nested_too_deep(self):
        """Read over one form, following only brackets, strings, escapes, comments and the
        # syntaxes that take forms (no recursion, each character once): SBCL reads forms
        nested this deep, and what they hold defines nothing global."""
        depth, needed = 0, 1  # open brackets; forms still to read at the outer level
        while True:
            self.skip_blank()
            c = self.peek()
            if not c:
                raise self.error("unbalanced parentheses: this '(' is never closed",
                                 self.outermost_open)
            complete = False
            if c == "(":
                depth, self.pos = depth + 1, self.pos + 1
            elif c == ")":
                if depth == 0:
                    raise self.error("a form is missing before this ')'")
                depth, self.pos = depth - 1, self.pos + 1
                complete = depth == 0
            elif c in "'`,":
                self.pos += 2 if self.text.startswith(",@", self.pos) else 1
            elif c == '"':
                self.string()
                complete = depth == 0
            elif c == "#":
                opened, more, complete = self.skip_dispatch()
                depth += opened
                needed += more if depth == 0 else 0
                complete = complete and depth == 0
            else:
                self.token()
                complete = depth == 0
            if complete:
                needed -= 1
                if needed == 0:
                    return Unconverted(f"form nested more than {MAX_DEPTH} levels deep")

    def skip_dispatch(self) -> tuple[int, int, bool]:
        """Past a # syntax: (brackets it opened, extra forms it takes, whether it is whole)."""
        start = self.pos
        self.pos += 1
        while self.peek().isdigit():
            self.pos += 1
        c = self.peek().lower()
        if not c:
            raise self.error("# at the end of the input", start)
        self.pos += 1
        if c == "\\":
            self.pos += 1
            self.token()
            return 0, 0, True
        if c == "(":
            return 1, 0, False
        if c in "+-":
            return 0, 1, False   # a feature expression, then the form it guards
        if c in "'.cpas=":
            return 0, 0, False   # the form that follows is part of this one
        if c in "*:boxr":
            self.token()
        return 0, 0, True

    # -- tokens -------------------------------------------------------------------------
    def token(self) -> tuple[list[str], bool, list[int]]:
        """The characters of a token (unescaped ones upper-cased, as CL's readtable case
        :upcase does), whether any were escaped, and where its unescaped colons are."""
        out: list[str] = []
        escaped, colons = False, []
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c == "|":
                end = text.find("|", self.pos + 1)
                while end >= 0 and text[end - 1] == "\\" and _odd_backslashes(text, end):
                    end = text.find("|", end + 1)
                if end < 0:
                    raise self.error("unterminated |escaped symbol|: no closing '|'")
                inside = text[self.pos + 1:end]
                out.extend(re.sub(r"\\(.)", r"\1", inside, flags=re.S))
                escaped, self.pos = True, end + 1
            elif c == "\\":
                if self.pos + 1 >= len(text):
                    raise self.error("a backslash at the end of the input")
                out.append(text[self.pos + 1])
                escaped, self.pos = True, self.pos + 2
            elif c in _TERMINATORS:
                break
            else:
                if c == ":":
                    colons.append(len(out))
                upper = c.upper()  # char-upcase: a character that would grow stays as is
                out.append(upper if len(upper) == 1 else c)
                self.pos += 1
        return out, escaped, colons

    def atom(self):
        start = self.pos
        chars, escaped, colons = self.token()
        raw = self.text[start:self.pos]
        if not raw:
            raise self.error(f"unexpected character {self.peek()!r}", start)
        if self.suppress:
            return NIL  # a dropped form's tokens are not interpreted (as *read-suppress*)
        if not escaped:
            try:
                number = _number("".join(chars))
            except ArithmeticError as problem:
                raise self.error(f"{short(raw)}: {problem}", start) from problem
            if number is not None:
                return number
            if set(raw) == {"."}:
                raise self.error(f"a token of only dots ({short(raw)}) is not allowed here", start)
        return self.symbol(chars, raw, colons, start)

    def symbol(self, chars, raw, colons, start) -> Symbol:
        if not colons:
            return Symbol("".join(chars), raw)
        first, last = colons[0], colons[-1]
        if len(colons) > 2 or (len(colons) == 2 and last != first + 1):
            raise self.error(f"too many colons in {short(raw)}", start)
        name = "".join(chars[last + 1:])
        text = raw[raw.rindex(":") + 1:]
        if first == 0:
            if len(colons) == 2:
                raise self.error(f"a keyword takes one colon, not {short(raw)}", start)
            return Symbol(name, text, "KEYWORD")
        return Symbol(name, text, "".join(chars[:first]))


def _odd_backslashes(text: str, end: int) -> bool:
    count = 0
    while end - 1 - count >= 0 and text[end - 1 - count] == "\\":
        count += 1
    return count % 2 == 1


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text)


def _is_real(value) -> bool:
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


def _ratio(numerator: int, denominator: int):
    value = Fraction(numerator, denominator)
    return value.numerator if value.denominator == 1 else value


def _number(token: str):
    """The number TOKEN (already upper-cased) spells in base 10, or None for a symbol."""
    text = token.lower()
    if len(text) > MAX_DIGITS and text[:1] in "+-.0123456789" and (
            _INTEGER.fullmatch(text) or _RATIO.fullmatch(text) or _FLOAT.fullmatch(text)):
        return Unconverted("number", token)
    if _INTEGER.fullmatch(text):
        return int(text.rstrip("."))  # `10.` is an integer in CL
    if _RATIO.fullmatch(text):
        numerator, denominator = text.split("/")
        if int(denominator) == 0:
            raise ZeroDivisionError("a ratio with a zero denominator")
        return _ratio(int(numerator), int(denominator))
    if _FLOAT.fullmatch(text):
        value = float(re.sub("[sfdl]", "e", text))  # 1.5d0: CL's exponent markers
        if not math.isfinite(value):
            raise OverflowError("a float too large to represent")
        return value
    return None


_DISPATCH = {
    "'": _Reader.function, "\\": _Reader.character, "(": _Reader.vector,
    "+": _Reader.feature_expression, "-": _Reader.feature_expression,
    ".": _Reader.read_eval, "b": _Reader.radix, "o": _Reader.radix, "x": _Reader.radix,
    "r": _Reader.radix, ":": _Reader.uninterned, "c": _Reader.complex_number,
    "p": _Reader.pathname, "*": _Reader.bit_vector, "a": _Reader.array,
    "s": _Reader.structure, "<": _Reader.unsupported, "=": _Reader.unsupported,
    "#": _Reader.unsupported,
}


def _is_unconverted_number(value) -> bool:
    return isinstance(value, Unconverted) and value.what == "number"


class UnknownFeatureExpression(ValueError):
    """A #+/#- test that is not a symbol or an (and|or|not ...) of them: SBCL refuses it."""


def has_feature(feature, features) -> bool:
    """CL's feature expressions: a symbol (read as a keyword), or (and|or|not ...), as SBCL
    evaluates them; anything else raises UnknownFeatureExpression, as SBCL does."""
    if isinstance(feature, Symbol) and feature.package in (None, "KEYWORD"):
        return feature.name in features
    if isinstance(feature, list) and feature and isinstance(feature[0], Symbol):
        head, rest = feature[0].name, feature[1:]
        if head == "AND":
            return all(has_feature(f, features) for f in rest)
        if head == "OR":
            return any(has_feature(f, features) for f in rest)
        if head == "NOT" and len(rest) == 1:
            return not has_feature(rest[0], features)
    raise UnknownFeatureExpression(short(dumps_or_repr(feature)))


def dumps_or_repr(value) -> str:
    try:
        return dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def short(text: str, limit: int = 60) -> str:
    """TEXT cut to LIMIT characters for a message (a token may be a megabyte long)."""
    return text if len(text) <= limit else text[:limit] + "..."


def read_all_with_lines(text: str, features=FEATURES) -> list[Located]:
    """Every top-level form of TEXT with the line and column it starts at; `#+`/`#-` test
    FEATURES (names of keywords, as SBCL's `*features*` holds them)."""
    reader = _Reader(text, features)
    forms: list = []
    while True:
        reader.skip_blank()
        line, column = reader.where()
        try:
            form = reader.form()
        except RecursionError:  # MAX_DEPTH keeps well under the limit; this is a backstop
            raise reader.error("forms nested too deeply", reader.pos) from None
        if form is _END:
            return forms
        if form is not _SKIPPED:
            forms.append(Located(form, line, column))


def read_all(text: str, features=FEATURES) -> list:
    return [located.form for located in read_all_with_lines(text, features)]


def read_one(text: str):
    """Exactly one form; anything after it (but blanks and comments) is an error."""
    forms = read_all_with_lines(text)
    if not forms:
        raise LispSyntaxError("no form to read", 1, 1)
    if len(forms) > 1:
        extra = forms[1]
        raise LispSyntaxError("more than one form: something follows the first one",
                              extra.line, extra.column)
    return forms[0].form


# -- printing -----------------------------------------------------------------------------
def dumps(value) -> str:
    """VALUE as Lisp text that reads back (with `read_one`) as an equal value."""
    if isinstance(value, Symbol):
        return _symbol_text(value)
    if isinstance(value, bool):
        return "T" if value else "NIL"
    if value is None:
        return "NIL"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, Char):
        return "#\\" + _CHAR_PRINT_NAMES.get(value.value, value.value)
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else (
            f"{value.numerator}/{value.denominator}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} has no Common Lisp spelling")
        text = repr(value)
        return text if ("." in text or "e" in text) else text + ".0"
    if isinstance(value, complex):
        return f"#C({dumps(value.real)} {dumps(value.imag)})"
    if isinstance(value, Dotted):
        return "(" + " ".join(map(dumps, value.items)) + " . " + dumps(value.tail) + ")"
    if isinstance(value, (list, tuple)):
        return "(" + " ".join(map(dumps, value)) + ")"
    raise TypeError(f"cannot print {type(value).__name__} as Lisp")


def _symbol_text(value: Symbol) -> str:
    prefix = {None: "", "KEYWORD": ":", "#": "#:"}.get(value.package)
    if prefix is None:
        prefix = _bare_name(value.package, value.package) + "::"
    return prefix + _bare_name(value.name, value.text)


@lru_cache(maxsize=4096)
def _bare_name(name: str, text: str) -> str:
    """TEXT (the spelling it was read with) when it reads back as NAME, else NAME between
    bars: `symbol("KhosmoodLevinson")` prints as written, `Symbol("two words")` as
    `|two words|`."""
    reader = _Reader(text)
    try:
        back = reader.next_form() if text else None
    except LispSyntaxError:
        back = None
    if (isinstance(back, Symbol) and back.package is None and reader.pos == len(text)
            and back.name == name):
        return text
    return "|" + name.replace("\\", "\\\\").replace("|", "\\|") + "|"
