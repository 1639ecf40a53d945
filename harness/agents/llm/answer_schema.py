"""A structured answer: the JSON schema a turn asks a model's server to hold its
answer to, how each server family is sent it, and the reader of an answer given as JSON.

The schema asks for exactly the turn's k moves, each "C" or "D", and in the chat phase a
one-line chat: `{"moves": ["D", "C", "D"]}`, `{"chat": "...", "moves": [...]}`. Servers
that take a schema constrain the model's sampling to it, which is what lets a small model
answer at all (a 135M model never writes `ACTION: C D C`, but answers valid JSON under a
grammar every time). Two families spell it differently (FORMS below).

The reader is for untrusted text: an answer that is valid JSON (an object or a list) is
judged by the schema and nothing else, so a wrong number of moves, a non-list, an extra or
doubled key, or JSON longer than MAX_JSON characters is a reason, never a guess; any other
answer (prose, or JSON that does not parse, as a server that ignores the schema may send)
is left to the prose rule (parse.py). Every reason is one line quoting nothing the model
sent.
"""
from __future__ import annotations

import json
from typing import NamedTuple

# the forms a request may take, strongest first: `auto` steps down this list (forms.py)
JSON_SCHEMA = "json_schema"      # OpenAI, vLLM, Ollama: {"type": "json_schema", ...}
JSON_OBJECT = "json_object"      # llama-cpp-python: {"type": "json_object", "schema": ...}
OFF = "off"                      # no response_format: the prose rule's request
FORMS = (JSON_SCHEMA, JSON_OBJECT, OFF)
AUTO = "auto"
SETTINGS = (AUTO, *FORMS)

MAX_JSON = 3000                  # characters of an answer read as JSON (a chat of 500 fits)
_FENCE = "```"


class Structured(NamedTuple):
    moves: str | None            # "CDC"; None when the JSON breaks the schema
    chat: str | None             # the chat given (chat phase), or None
    error: str | None            # why the moves cannot be played


def schema(moves_per_turn: int, chat: bool, max_chat: int) -> dict:
    moves = {"type": "array", "items": {"type": "string", "enum": ["C", "D"]},
             "minItems": moves_per_turn, "maxItems": moves_per_turn}
    # chat first: a server that keeps the properties' order has the model speak, then act
    properties = {"chat": {"type": "string", "maxLength": max_chat}, "moves": moves} \
        if chat else {"moves": moves}
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


def response_format(form: str, moves_per_turn: int, chat: bool, max_chat: int) -> dict | None:
    """The request's `response_format` in `form` (None: off, no such field)."""
    if form == OFF:
        return None
    body = schema(moves_per_turn, chat, max_chat)
    if form == JSON_OBJECT:
        return {"type": "json_object", "schema": body}
    return {"type": "json_schema", "json_schema": {"name": "turn", "strict": True,
                                                   "schema": body}}


def example_answer(moves: str, chat: str | None) -> str:
    """An answer in the schema's form, as the prompt shows it."""
    shown = {"chat": chat} if chat is not None else {}
    return json.dumps({**shown, "moves": list(moves)})


def read_json_answer(text: str, moves_per_turn: int, chat: bool) -> Structured | None:
    """The answer judged by the schema when it is JSON (an object or a list, alone or in a
    ``` fence); None when it is not JSON, for the prose rule to read."""
    body = _unfenced(text.strip())
    if not body.startswith(("{", "[")):
        return None
    if len(body) > MAX_JSON:
        return _broken(f"a JSON answer of more than {MAX_JSON} characters")
    try:
        value = json.loads(body, object_pairs_hook=_no_doubled_keys)
    except _Doubled:
        return _broken("a JSON object with a key given twice")
    except RecursionError:
        return _broken("JSON nested too deeply")
    except ValueError:
        return None              # not JSON after all (`[C, D]`, a cut answer): prose
    return _judged(value, moves_per_turn, chat)


def _judged(value, k: int, chat: bool) -> Structured:
    if not isinstance(value, dict):
        return _broken(f"{_kind(value)}, not an object with \"moves\"")
    allowed = {"moves", "chat"} if chat else {"moves"}
    extra = len(set(value) - allowed)
    if extra:
        return _broken(f"{extra} key{'s' * (extra != 1)} besides " +
                       " and ".join(f'"{key}"' for key in sorted(allowed)))
    if "moves" not in value:
        return _broken('no "moves" in the JSON answer')
    moves = value["moves"]
    if not isinstance(moves, list):
        return _broken(f'"moves" is {_kind(moves)}, not a list')
    if len(moves) != k:
        return _broken(f'{len(moves)} moves in "moves", where {k} {"is" if k == 1 else "are"} '
                       "asked")
    for number, move in enumerate(moves, 1):
        if not isinstance(move, str) or move not in ("C", "D"):
            return _broken(f'move {number} of "moves" is not "C" or "D"')
    said = value.get("chat")
    if said is not None and not isinstance(said, str):
        return Structured("".join(moves), None, None)   # no chat to show (chat_problem says)
    return Structured("".join(moves), said, None)


class _Doubled(ValueError):
    pass


def _no_doubled_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _Doubled
    return dict(pairs)


def _unfenced(text: str) -> str:
    """The inside of a ``` fence (```json ... ```) around the whole answer, or the text."""
    if not (text.startswith(_FENCE) and text.endswith(_FENCE) and len(text) > 2 * len(_FENCE)):
        return text
    inner = text[len(_FENCE):-len(_FENCE)]
    first, newline, rest = inner.partition("\n")
    if newline and first.strip().isalpha():    # the fence's language tag
        inner = rest
    return inner.strip()


def _broken(reason: str) -> Structured:
    return Structured(None, None, reason)


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true or false",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "a value")
