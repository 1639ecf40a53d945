"""Common Lisp s-expressions: a reader and a printer (never an evaluator).

The reader handles what agent files and the original monitor call contain: lists, dotted
pairs, symbols (upper-cased as the CL reader does, with the spelling kept), numbers
(integers, decimals, ratios, exponents), strings, characters, quote, #', backquote and
comma, comments, block comments and feature expressions. `#.` (read-time evaluation) is
refused. Every error names its line and column.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

_TERMINATORS = set("()'\";`,") | set(" \t\r\n\f")


class LispSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"line {line}, column {column}: {message}")
        self.message, self.line, self.column = message, line, column


@dataclass(frozen=True)
class Symbol:
    """A symbol: `name` as CL interns it (upper case unless escaped), `text` as written."""

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
    return Symbol(text.upper(), text)


@dataclass(frozen=True)
class Char:
    """A character object, `#\\C`."""

    value: str


@dataclass(frozen=True)
class Dotted:
    """An improper list `(a b . c)`: items and the final cdr."""

    items: tuple
    tail: object


@dataclass(frozen=True)
class Located:
    form: object
    line: int
    column: int


QUOTE, FUNCTION = Symbol("QUOTE"), Symbol("FUNCTION")
QUASIQUOTE, UNQUOTE, UNQUOTE_SPLICING = (Symbol("QUASIQUOTE"), Symbol("UNQUOTE"),
                                         Symbol("UNQUOTE-SPLICING"))
_CHAR_NAMES = {"SPACE": " ", "NEWLINE": "\n", "TAB": "\t", "RETURN": "\r",
               "LINEFEED": "\n", "PAGE": "\f", "BACKSPACE": "\b", "RUBOUT": "\x7f",
               "NUL": "\0", "NULL": "\0"}
_END = object()
_SKIPPED = object()  # what a #+/#- expression reads as when its feature is absent


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.depth = 0
        self.top_level_start = 0

    # -- positions ----------------------------------------------------------------------
    def where(self, pos=None) -> tuple[int, int]:
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        return line, pos - (self.text.rfind("\n", 0, pos) + 1) + 1

    def error(self, message: str, pos=None):
        return LispSyntaxError(message, *self.where(pos))

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    # -- skipping -----------------------------------------------------------------------
    def skip_blank(self) -> None:
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c in " \t\r\n\f":
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
        raise self.error("unterminated #| block comment", start)

    # -- forms --------------------------------------------------------------------------
    def form(self, inside_list: bool = False):
        self.skip_blank()
        start = self.pos
        c = self.peek()
        if not c:
            return _END
        if c == "(":
            if self.depth == 0:
                self.top_level_start = start
            self.pos += 1
            self.depth += 1
            try:
                return self.list_rest(start)
            finally:
                self.depth -= 1
        if c == ")":
            if inside_list:
                return _END
            raise self.error("unexpected ')' with no '(' to close")
        if c == "'":
            return self.prefixed(QUOTE, "'")
        if c == "`":
            return self.prefixed(QUASIQUOTE, "`")
        if c == ",":
            if self.text.startswith(",@", self.pos):
                self.pos += 1
                return self.prefixed(UNQUOTE_SPLICING, ",@")
            return self.prefixed(UNQUOTE, ",")
        if c == '"':
            return self.string()
        if c == "#":
            return self.dispatch()
        return self.atom()

    def prefixed(self, head: Symbol, mark: str):
        start = self.pos
        self.pos += 1
        inner = self.form(inside_list=True)
        if inner is _END:
            raise self.error(f"nothing after {mark}", start)
        return [head, inner]

    def list_rest(self, start: int):
        items = []
        while True:
            self.skip_blank()
            if not self.peek():
                # the outermost open form is where the missing ')' belongs, usually
                raise self.error("unbalanced parentheses: this '(' is never closed",
                                 self.top_level_start)
            if self.peek() == ")":
                self.pos += 1
                return items
            if self.peek() == "." and self.text[self.pos + 1:self.pos + 2] in _TERMINATORS | {""}:
                return self.dotted_rest(items, start)
            item = self.form(inside_list=True)
            if item is not _SKIPPED:
                items.append(item)

    def dotted_rest(self, items, start):
        dot = self.pos
        self.pos += 1
        if not items:
            raise self.error("a dot with nothing before it", dot)
        tail = self.form(inside_list=True)
        self.skip_blank()
        if tail is _END or self.peek() != ")":
            raise self.error("a dotted list needs exactly one form after the dot", dot)
        self.pos += 1
        return Dotted(tuple(items), tail)

    def string(self):
        start = self.pos
        self.pos += 1
        out = []
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == "\\":
                self.pos += 1
                if self.pos >= len(self.text):
                    break
                out.append(self.text[self.pos])
            elif c == '"':
                self.pos += 1
                return "".join(out)
            else:
                out.append(c)
            self.pos += 1
        raise self.error("unterminated string", start)

    def dispatch(self):
        start = self.pos
        c = self.text[self.pos + 1:self.pos + 2]
        if c == "'":
            self.pos += 1
            return self.prefixed(FUNCTION, "#'")
        if c == "\\":
            return self.character()
        if c == "(":
            self.pos += 2
            return [Symbol("VECTOR"), *self.list_rest(start)]
        if c in "+-":
            return self.feature_expression(c)
        if c == ".":
            raise self.error("#. (read-time evaluation) is not allowed", start)
        if c.lower() in "box":
            self.pos += 2
            token = self.token()
            try:
                return int(token, {"b": 2, "o": 8, "x": 16}[c.lower()])
            except ValueError:
                raise self.error(f"bad number #{c}{token}", start)
        raise self.error(f"unknown dispatch macro #{c or ' at end of input'}", start)

    def character(self):
        self.pos += 2
        begin = self.pos
        if self.pos >= len(self.text):
            raise self.error("#\\ with no character", begin - 2)
        self.pos += 1  # the first character is taken whatever it is
        while self.peek() and self.peek() not in _TERMINATORS:
            self.pos += 1
        name = self.text[begin:self.pos]
        if len(name) == 1:
            return Char(name)
        if name.upper() in _CHAR_NAMES:
            return Char(_CHAR_NAMES[name.upper()])
        raise self.error(f"unknown character name #\\{name}", begin - 2)

    def feature_expression(self, sign):
        """#+feature form / #-feature form: kept or skipped as for SBCL on Linux."""
        self.pos += 2
        feature = self.form(inside_list=True)
        form = self.form(inside_list=True)
        if feature is _END or form is _END:
            raise self.error(f"#{sign} needs a feature and a form")
        keep = _has_feature(feature) == (sign == "+")
        return form if keep else _SKIPPED

    def token(self) -> str:
        out = []
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == "|":
                end = self.text.find("|", self.pos + 1)
                if end < 0:
                    raise self.error("unterminated |escaped symbol|")
                out.append(self.text[self.pos + 1:end])
                self.pos = end + 1
                continue
            if c == "\\":
                out.append(self.text[self.pos + 1:self.pos + 2])
                self.pos += 2
                continue
            if c in _TERMINATORS:
                break
            out.append(c)
            self.pos += 1
        return "".join(out)

    def atom(self):
        start = self.pos
        token = self.token()
        raw = self.text[start:self.pos]
        if not raw:
            raise self.error(f"unexpected character {self.peek()!r}", start)
        if "|" not in raw and "\\" not in raw:
            number = _number(token)
            if number is not None:
                return number
        return _symbol(raw, token)


def _number(token: str):
    text = token.lower()
    try:
        if text.count("/") == 1:
            numerator, denominator = text.split("/")
            if numerator.lstrip("+-").isdigit() and denominator.isdigit():
                value = Fraction(int(numerator), int(denominator))
                return value.numerator if value.denominator == 1 else value
            return None
        if text.lstrip("+-").isdigit():
            return int(text)
        if text.endswith("."):  # `10.` is an integer in CL
            return int(text[:-1]) if text[:-1].lstrip("+-").isdigit() else None
        if "_" in text or not any(ch.isdigit() for ch in text):
            return None
        mantissa, marker, exponent = text.partition(next((m for m in "dfsl" if m in text), "e"))
        if marker in "dfsl" and marker:
            text = f"{mantissa}e{exponent}"  # 1.5d0: CL's exponent markers
        return float(text)
    except (ValueError, ZeroDivisionError):
        return None
    return None


def _symbol(raw: str, token: str) -> Symbol:
    escaped = "|" in raw or "\\" in raw
    package = None
    if ":" in token and not escaped:
        package, _, token = token.rpartition(":")
        package = package.rstrip(":").upper() or "KEYWORD"
        raw = raw.rpartition(":")[2]
    name = token if escaped else token.upper()
    return Symbol(name, raw, package)


def _has_feature(feature) -> bool:
    present = {"SBCL", "COMMON-LISP", "ANSI-CL", "LINUX", "UNIX", "X86-64", "64-BIT"}
    if isinstance(feature, Symbol):
        return feature.name in present
    if isinstance(feature, list) and feature and isinstance(feature[0], Symbol):
        head, rest = feature[0].name, feature[1:]
        if head == "AND":
            return all(_has_feature(f) for f in rest)
        if head == "OR":
            return any(_has_feature(f) for f in rest)
        if head == "NOT":
            return not any(_has_feature(f) for f in rest)
    return False


def read_all_with_lines(text: str) -> list[Located]:
    reader = _Reader(text)
    forms = []
    while True:
        reader.skip_blank()
        line, column = reader.where()
        form = reader.form()
        if form is _END:
            return forms
        if form is not _SKIPPED:
            forms.append(Located(form, line, column))


def read_all(text: str) -> list:
    return [located.form for located in read_all_with_lines(text)]


def read_one(text: str):
    forms = read_all_with_lines(text)
    if not forms:
        raise LispSyntaxError("no form to read", 1, 1)
    if len(forms) > 1:
        extra = forms[1]
        raise LispSyntaxError("more than one form", extra.line, extra.column)
    return forms[0].form


# -- printing -----------------------------------------------------------------------------
def dumps(value) -> str:
    if isinstance(value, Symbol):
        return (f"{value.package}::" if value.package not in (None, "KEYWORD") else
                ":" if value.package == "KEYWORD" else "") + value.text
    if isinstance(value, bool):
        return "T" if value else "NIL"
    if value is None:
        return "NIL"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, Char):
        named = {v: k.capitalize() for k, v in _CHAR_NAMES.items() if k not in ("LINEFEED", "NUL")}
        return "#\\" + named.get(value.value, value.value)
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Dotted):
        return "(" + " ".join(map(dumps, value.items)) + " . " + dumps(value.tail) + ")"
    if isinstance(value, (list, tuple)):
        return "(" + " ".join(map(dumps, value)) + ")"
    raise TypeError(f"cannot print {type(value).__name__} as Lisp")
