"""Colour for what a person reads on a terminal: pass in green, failures and errors in red,
warnings in yellow. Off when the stream is not a terminal or NO_COLOR is set (no-color.org),
so files, pipes and CI logs get plain text. Colour is added after untrusted text has been
escaped (safe_text), so only our own escape codes ever reach the terminal."""
from __future__ import annotations

import os
import re
import sys

# ANSI SGR codes, as click.style spells them: green; red and bold; yellow
STYLES = {"pass": "\x1b[32m", "fail": "\x1b[31m\x1b[1m", "warning": "\x1b[33m",
          "error": "\x1b[31m\x1b[1m"}
RESET = "\x1b[0m"


def enabled(err: bool = False) -> bool:
    stream = sys.stderr if err else sys.stdout
    return not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()


def paint(text: str, kind: str, err: bool = False) -> str:
    return f"{STYLES[kind]}{text}{RESET}" if enabled(err) else text


_VERDICT = re.compile(r"^(ok  |FAIL)(?=  )|^(\s+warning:)", re.MULTILINE)


def verdicts(table: str) -> str:
    """validate's table (already escaped) with its ok / FAIL marks and warnings coloured."""
    if not enabled():
        return table

    def colour(found):
        if found.group(1):
            return paint(found.group(1), "pass" if found.group(1) == "ok  " else "fail")
        return paint(found.group(2), "warning")

    return _VERDICT.sub(colour, table)
