"""Untrusted text made safe for where it is shown: a terminal, a spreadsheet.

Agent names, file paths, load-error and fault messages, warnings and what an agent printed
all come from a submission (or from a record anyone could have edited). A terminal obeys
the control characters in such text (cursor moves, erased lines, a new window title, OSC 52
writes to the clipboard), bidi overrides reorder what is shown, and a spreadsheet runs a
cell that starts with `=`, `+`, `-` or `@` as a formula. So:

- `line(text)` shows every control character (C0, DEL, C1), bidi control, line or paragraph
  separator and lone surrogate as a visible escape, Python-style: ESC as `\\x1b`, a newline
  as `\\n`, U+202E as `\\u202e`. For a field printed on one line (a name, a message).
- `block(text)` does the same but keeps newlines and tabs: for text shown as a block (what
  an agent printed) and as a last safety net on a whole printed table.
- `csv_cell(value)` is `line` for a CSV cell, and prefixes a cell a spreadsheet would read
  as a formula with `'` (OWASP's advice for CSV injection), also after leading blanks and
  for the full-width ＝ ＋ － ＠.

Records keep the raw text; only what is shown is escaped. A backslash is left as it is, so
`\\x1b` in the output may also be those four characters as written: the record has the
original.
"""
from __future__ import annotations

import re
import sys

# Bidi controls (marks, embeddings, overrides, isolates) and the two Unicode line breaks
# that are not C0 characters: they change how the rest of a line is shown or split.
_INVISIBLE_FORMATTING = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                         *range(0x2066, 0x206A), 0x2028, 0x2029)


def _escape(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
_LINE = {code: _NAMED.get(code, _escape(code))
         for code in (*range(0x20), *range(0x7F, 0xA0), *_INVISIBLE_FORMATTING)}
_BLOCK = {code: text for code, text in _LINE.items() if code not in (0x09, 0x0A)}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogates(text: str) -> str:
    """Lone surrogates (bytes that were not UTF-8, kept by surrogateescape) cannot be
    encoded for output at all: show them as escapes too."""
    return _SURROGATE.sub(lambda found: _escape(ord(found.group())), text)


def line(text) -> str:
    """`text` (anything: str() of it) with nothing a terminal would obey, on one line."""
    return _surrogates(str(text).translate(_LINE))


def block(text) -> str:
    """`text` with nothing a terminal would obey, its lines and tabs kept."""
    return _surrogates(str(text).translate(_BLOCK))


# A cell a spreadsheet reads as a formula starts with one of these (after `line`, a tab or
# carriage return is already the visible `\t`/`\r`, but keep them here for the rule's sake),
# possibly after spaces: Google Sheets and LibreOffice's import with "trim spaces" drop
# leading blanks (a no-break or ideographic space too) before they look, and spreadsheets in
# East Asian locales take the full-width forms ＝ ＋ － ＠ for the ASCII ones. No spreadsheet
# runs here to ask, so every one of these is taken as live (a quote in front costs nothing).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def csv_cell(value):
    """A value as a CSV cell that no spreadsheet runs: numbers as they are, text escaped
    with `line` and, when it starts like a formula, even after blanks (and is not just a
    number), prefixed with a single quote."""
    if value is None or isinstance(value, (bool, int, float)):
        return "" if value is None else value
    text = line(value)
    start = text.lstrip()
    if start.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(start):
        return "'" + text
    return text


def echo(text: str = "", err: bool = False) -> None:
    """Print text that holds anything untrusted, with a newline, flushed (as click.echo
    does, without click: this is the bottom layer): a last safety net that leaves no control
    character but newline and tab, however the text was put together. A character the
    stream cannot encode goes out as its escape, never as an error."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:   # no standard stream attached (a daemon's, pythonw's)
        return
    out = block(text) + "\n"
    try:
        stream.write(out)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        stream.write(out.encode(encoding, "backslashreplace").decode(encoding))
    stream.flush()

