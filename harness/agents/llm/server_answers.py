"""What a model's server answered, read as untrusted text: its JSON parsed within bounds,
its fields checked (types, lengths, the token counts' range) before anything else sees
them.

The body is already capped (bounded_http.MAX_BODY). Parsing is bounded too: a body of
JSON with more than MAX_CONTAINERS objects and lists (`[{},{},...]`: a few bytes each,
tens of bytes of memory each once parsed) is refused before it is parsed, and too deep a
nesting or too long a number is a reason, not a traceback. Every reason is one line
that quotes nothing the server sent.
"""
from __future__ import annotations

import json
import re
from typing import NamedTuple

MAX_CONTAINERS = 100_000     # JSON objects and lists in one answer
MAX_MODEL_NAME = 200         # characters of a listed model's name that are compared
MAX_TOKENS = 10_000_000      # tokens one call may say it used (more than any context holds)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class Unreadable(Exception):
    """The answer is not what an OpenAI-compatible server sends; the message says how."""


def json_of(body: bytes, content_type: str | None):
    media = (content_type or "").split(";")[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        raise Unreadable("not JSON (Content-Type " +
                         ("none" if not media else "another") + ")")
    if body.count(b"{") + body.count(b"[") > MAX_CONTAINERS:
        raise Unreadable(f"more than {MAX_CONTAINERS} JSON objects and lists")
    try:
        return json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8") from None
    except (ValueError, RecursionError):   # JSONDecodeError, a 5000-digit number, nesting
        raise Unreadable("not valid JSON") from None


def completion_text(data) -> str:
    """The text of the first choice of a chat completion (the others are not read)."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices:
        raise Unreadable("no choices")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise Unreadable("no message in the first choice")
    content = message.get("content")
    if content is None:
        raise Unreadable("a message with no content")
    if not isinstance(content, str):
        raise Unreadable(f"a message whose content is not text ({_kind(content)})")
    # JSON may spell half a surrogate pair (`"\ud800"`), which is no character: it could
    # not be written to a record (UTF-8) nor printed, so it becomes U+FFFD, as in a
    # decoder's replacement
    return _LONE_SURROGATE.sub("\ufffd", content)


class Usage(NamedTuple):
    prompt_tokens: int | None        # None: not said, or not a count to believe
    completion_tokens: int | None


def completion_usage(data) -> Usage:
    """The tokens a chat completion says it used (`usage`), each only if it is a whole
    number from 0 to MAX_TOKENS (a server may send anything there: a count of -1, of
    10**30, "12", true is no count). Nothing here fails the answer: a course is told the
    cost it can believe, and calls without it are counted apart."""
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return Usage(None, None)
    return Usage(_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))


def _count(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        return None
    return value


def model_ids(data) -> list[str]:
    """The names of a list of models (`{"data": [{"id": ...}, ...]}`), each cut to
    MAX_MODEL_NAME characters."""
    listed = data.get("data") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        raise Unreadable("no list of models (data)")
    names = []
    for entry in listed:
        name = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            raise Unreadable("a model without a name (id) as text")
        names.append(name[:MAX_MODEL_NAME])
    return names


def _kind(value) -> str:
    return {dict: "an object", list: "a list", bool: "true or false", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)
