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

What Lisp data is in Python: lisp_bridge/sexpr_data.py. The `#` syntaxes:
lisp_bridge/sexpr_dispatch.py.
"""
from __future__ import annotations

import bisect
import math
import re
from fractions import Fraction
from functools import lru_cache

from .sexpr_data import (
    CHAR_PRINT_NAMES,
    FEATURES,
    MAX_DEPTH,
    NIL,
    QUASIQUOTE,
    QUOTE,
    UNQUOTE,
    UNQUOTE_SPLICING,
    Char,
    Dotted,
    LispSyntaxError,
    Located,
    Symbol,
    Unconverted,
    short,
    token_number,
)
from .sexpr_dispatch import END, SKIPPED, TERMINATORS, WHITESPACE, DispatchSyntax


class _Reader(DispatchSyntax):
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
    def shown(self, value) -> str:
        return short(dumps_or_repr(value))

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
            if form is not SKIPPED:
                return form

    def form(self, inside_list: bool = False):
        self.skip_blank()
        c = self.peek()
        if not c:
            return END
        if c == ")":
            if inside_list:
                return END
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
        if inner is END:
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
            if self.peek() == "." and self.peek(1) in TERMINATORS | {""}:
                return self.dotted_rest(items)
            item = self.form(inside_list=True)
            if item is not SKIPPED:
                items.append(item)

    def dotted_rest(self, items):
        dot = self.pos
        self.pos += 1
        if not items:
            raise self.error("a dot with nothing before it", dot)
        tail = self.next_form(inside_list=True)
        self.skip_blank()
        if tail is END or self.peek() != ")":
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
            elif c in TERMINATORS:
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
                number = token_number("".join(chars))
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


def dumps_or_repr(value) -> str:
    try:
        return dumps(value)
    except (TypeError, ValueError):
        return repr(value)



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
        if form is END:
            return forms
        if form is not SKIPPED:
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
        return "#\\" + CHAR_PRINT_NAMES.get(value.value, value.value)
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
