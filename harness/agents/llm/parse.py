"""Reading a model's answer: the one documented parse rule, and the chat check.

The rule (docs/llm.md, "How an answer is read"), for an answer of k moves:
1. If the answer holds an `ACTION:` marker (any case), the moves are read from the rest of
   the marker's line.
2. Else, for one move, the first character of the answer (after blanks) if it is C or D.
3. Else the moves are read from the answer's first non-blank line.
Reading moves from a line: its upper-case words made only of the letters C and D, in
order; a one-letter word is one move and a word of exactly k letters is k moves. The first
k moves found are the answer; fewer is a parse error.

Upper case only, so that words like "do" or "cooperate" in a sentence are never read as
moves ("Cooperate." still is, by rule 2).

When the request asked for a structured answer (answer_schema.py), an answer that is JSON
is judged by the schema alone, and the rule above reads any other (`read_answer`); when it
did not (`structured = "off"`), the rule reads every answer, as before structured answers.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .answer_schema import OFF, read_json_answer

MAX_CHAT = 500              # characters of one chat message
_MARKER = re.compile(r"ACTION\s*:", re.IGNORECASE)
_CHAT = re.compile(r"CHAT\s*:", re.IGNORECASE)
_WORD = re.compile(r"(?<![A-Za-z0-9_])[CD]+(?![A-Za-z0-9_])")


class Parsed(NamedTuple):
    moves: str | None        # "C", "CCD", ...; None on a parse error
    error: str | None        # why not, for the corrective prompt and the record


def parse_moves(text: str, k: int) -> Parsed:
    marker = _MARKER.search(text)
    if marker:
        region = text[marker.end():].split("\n", 1)[0]
        where = "after ACTION:"
    else:
        stripped = text.lstrip()
        if k == 1 and stripped[:1] in ("C", "D"):
            return Parsed(stripped[0], None)
        region = next((line for line in stripped.splitlines() if line.strip()), "")
        where = "on the first line"
    moves = []
    for word in _WORD.findall(region):
        if len(word) == 1 or len(word) == k:
            moves.extend(word)
        if len(moves) >= k:
            return Parsed("".join(moves[:k]), None)
    wanted = "one move, C or D" if k == 1 else f"{k} moves, each C or D"
    return Parsed(None, f"found {len(moves)} of {wanted}, {where}")


class Read(NamedTuple):
    moves: str | None        # None: a parse error
    error: str | None        # why not
    chat: str | None         # the chat given, in the chat phase (None: none found)


def read_answer(text: str, k: int, chat: bool, form: str) -> Read:
    """A turn's answer, read as the request's `form` asked for it."""
    if form != OFF:
        judged = read_json_answer(text, k, chat)
        if judged is not None:
            return Read(judged.moves, judged.error, judged.chat if chat else None)
    moves, error = parse_moves(text, k)
    return Read(moves, error, parse_chat(text) if chat and moves is not None else None)


def parse_chat(text: str) -> str | None:
    """The text after `CHAT:` up to an `ACTION:` marker (or the end), stripped; None when
    the answer has no CHAT: marker."""
    marker = _CHAT.search(text)
    if not marker:
        return None
    rest = text[marker.end():]
    action = _MARKER.search(rest)
    return (rest[:action.start()] if action else rest).strip()


def chat_problem(chat: str | None) -> str | None:
    """Why a chat may not be shown to the other player, or None when it may: it must be
    there, not empty, at most MAX_CHAT characters, and hold only printable characters and
    plain spaces (no control, format, private-use or unassigned characters, no line
    breaks: a chat is one paragraph)."""
    if chat is None:
        return "no chat in the answer"
    if not chat:
        return "empty"
    if len(chat) > MAX_CHAT:
        return f"{len(chat)} characters (at most {MAX_CHAT})"
    for char in chat:
        if not (char.isprintable() or char == " "):
            return f"holds the character U+{ord(char):04X}"
    return None
