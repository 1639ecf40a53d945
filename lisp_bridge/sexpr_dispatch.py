"""The Lisp reader's `#` syntaxes (lisp_bridge/sexpr.py reads the rest): what follows a `#`,
read by the reader it is mixed into, and CL's feature expressions for `#+` and `#-`."""
from __future__ import annotations

from .sexpr_data import (
    ARRAY,
    BIT_VECTOR,
    CHAR_NAMES,
    FUNCTION,
    MAX_DIGITS,
    NIL,
    PATHNAME,
    STRUCTURE,
    VECTOR,
    Char,
    LispSyntaxError,
    Symbol,
    Unconverted,
    is_hex,
    is_real,
    is_unconverted_number,
    ratio,
    short,
)

WHITESPACE = " \t\r\n\f\v"
# characters that end a token (CL's whitespace and terminating macro characters)
TERMINATORS = frozenset("()'\";`," + WHITESPACE)
END = object()      # no more forms (end of text, or a ')' that closes the open list)
SKIPPED = object()  # a #+/#- expression whose feature test failed: reads as nothing


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
    raise UnknownFeatureExpression(feature)


class DispatchSyntax:
    """The `#` syntaxes of a reader of forms and tokens (sexpr._Reader defines the rest)."""

    text: str
    pos: int
    suppress: int           # inside a #+/#- form that is dropped: read, not interpreted
    features: frozenset

    def next_form(self, inside_list: bool = False):
        raise NotImplementedError

    def list_rest(self) -> list:
        raise NotImplementedError

    def token(self) -> tuple[list[str], bool, list[int]]:
        raise NotImplementedError

    def peek(self, ahead: int = 0) -> str:
        raise NotImplementedError

    def error(self, message: str, pos: int | None = None) -> LispSyntaxError:
        raise NotImplementedError

    def shown(self, value) -> str:
        """VALUE as a message quotes it (Lisp, cut short)."""
        raise NotImplementedError

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
        handler = DISPATCH.get(c.lower())
        if handler is None:
            if c in WHITESPACE or c == ")":
                raise self.error(f"# followed by {c!r} is not Lisp syntax", start)
            raise self.error(f"unknown dispatch macro #{c}", start)
        self.pos += 1
        return handler(self, start, argument)

    def function(self, start, _argument):
        inner = self.next_form(inside_list=True)
        if inner is END:
            raise self.error("nothing after #'", start)
        return [FUNCTION, inner]

    def character(self, start, _argument):
        if self.pos >= len(self.text):
            raise self.error("#\\ with no character", start)
        begin = self.pos
        self.pos += 1  # the first character is taken whatever it is
        while self.peek() and self.peek() not in TERMINATORS:
            self.pos += 1
        name = self.text[begin:self.pos]
        if len(name) == 1:
            return Char(name)
        if name.upper() in CHAR_NAMES:
            return Char(CHAR_NAMES[name.upper()])
        code = name[1:].lstrip("+")
        if name[0] in "uU" and is_hex(code) and int(code, 16) < 0x110000:
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
        if feature is END:
            raise self.error(f"#{sign} needs a feature expression and a form", start)
        keep = self.has_feature(feature, start) == (sign == "+")
        if not keep:
            self.suppress += 1
        try:
            form = self.next_form(inside_list=True)
        finally:
            if not keep:
                self.suppress -= 1
        if form is END:
            raise self.error(f"#{sign} needs a form after its feature expression", start)
        return form if keep else SKIPPED

    def has_feature(self, feature, start) -> bool:
        if self.suppress:
            return False  # inside a dropped form SBCL does not test it (*read-suppress*)
        try:
            return has_feature(feature, self.features)
        except UnknownFeatureExpression as error:
            raise self.error(f"unknown feature expression {self.shown(error.args[0])} (SBCL refuses it: write "
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
                return ratio(int(numerator, base), int(denominator, base))
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
                and all(is_real(part) or is_unconverted_number(part) for part in parts)):
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
        if argument is None or contents is END:
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


DISPATCH = {
    "'": DispatchSyntax.function, "\\": DispatchSyntax.character, "(": DispatchSyntax.vector,
    "+": DispatchSyntax.feature_expression, "-": DispatchSyntax.feature_expression,
    ".": DispatchSyntax.read_eval, "b": DispatchSyntax.radix, "o": DispatchSyntax.radix, "x": DispatchSyntax.radix,
    "r": DispatchSyntax.radix, ":": DispatchSyntax.uninterned, "c": DispatchSyntax.complex_number,
    "p": DispatchSyntax.pathname, "*": DispatchSyntax.bit_vector, "a": DispatchSyntax.array,
    "s": DispatchSyntax.structure, "<": DispatchSyntax.unsupported, "=": DispatchSyntax.unsupported,
    "#": DispatchSyntax.unsupported,
}
