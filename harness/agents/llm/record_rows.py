"""A language-model agent in the `--db` record: its declaration (`llm_agent`, never a key),
every request and response (`llm_call`: with the form it was asked in and the tokens
the server said it used) and each turn's chat and parse outcome
(`llm_turn`), written with the game's round (harness/store/recorder.py); and read back
for `show --game` and `resume`."""
from __future__ import annotations

import json

from .config import LlmConfig
from .server_answers import completion_usage


def agent_rows(specs):
    """Only a language model's spec carries its declaration (`AgentSpec.llm`)."""
    return [(spec.name, spec.llm.as_json()) for spec in specs if spec.llm is not None]


# llm_call's columns as written (by name: a record made before the last three has none)
CALL_COLUMNS = ("game", "turn", "side", "attempt", "prompt", "response", "error", "latency",
                "tries", "structured", "prompt_tokens", "completion_tokens")
_ADDED = (("structured", "TEXT"), ("prompt_tokens", "INTEGER"),
          ("completion_tokens", "INTEGER"))


def call_rows(game_id: int, game):
    for (side, index), talk in sorted(game.talk.items()):
        for attempt, call in enumerate(talk["calls"], 1):
            yield (game_id, index + 1, side, attempt, json.dumps(call["prompt"]),
                   call["response"], call["error"], call["latency"], call["tries"],
                   call.get("structured"), call.get("prompt_tokens"),
                   call.get("completion_tokens"))


def add_call_columns(connection) -> None:
    """A record made before structured answers and tokens were recorded gets their columns in
    llm_call, so a resumed run writes its calls whole; one without llm tables is left."""
    present = {row[1] for row in connection.execute("PRAGMA table_info(llm_call)")}
    if not present:
        return
    with connection:
        for column, kind in _ADDED:
            if column not in present:
                connection.execute(f"ALTER TABLE llm_call ADD COLUMN {column} {kind}")


def turn_rows(game_id: int, game):
    for (side, index), talk in sorted(game.talk.items()):
        first = talk.get("first")
        yield (game_id, index + 1, side, None if first is None else int(first),
               talk.get("heard"), talk.get("chat"), talk.get("chat_problem"),
               talk.get("parse_error"))


def has_tables(connection) -> bool:
    """Whether the record has the llm tables (older records do not)."""
    return connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                              "name = 'llm_call'").fetchone()[0] == 1


def recorded_config(connection, name: str):
    """The LlmConfig an agent of the record was run with, or None."""
    if not has_tables(connection):
        return None
    row = connection.execute("SELECT config FROM llm_agent WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None
    try:
        return LlmConfig.from_json(row[0])
    except (ValueError, TypeError, KeyError):
        return None


def game_talk(connection, game_id: int) -> dict:
    """{(side, turn - 1): talk} of one recorded game, as the game made it."""
    talk: dict = {}
    if not has_tables(connection):
        return talk
    for row in connection.execute("SELECT turn, side, first, heard, chat, chat_problem, "
                                  "parse_error FROM llm_turn WHERE game = ?", (game_id,)):
        turn, side, first, heard, chat, problem, parse_error = tuple(row)
        talk[side, turn - 1] = {"calls": [], "first": None if first is None else bool(first),
                                "heard": heard, "chat": chat, "chat_problem": problem,
                                "shown": chat if chat is not None and problem is None else None,
                                "parse_error": parse_error}
    present = {row[1] for row in connection.execute("PRAGMA table_info(llm_call)")}
    added = [column if column in present else "NULL" for column, _ in _ADDED]
    for row in connection.execute("SELECT turn, side, prompt, response, error, latency, tries, "
                                  f"{', '.join(added)} FROM llm_call WHERE game = ? "
                                  "ORDER BY turn, side, attempt", (game_id,)):
        turn, side, prompt, response, error, latency, tries, form, asked, answered = tuple(row)
        try:
            messages = json.loads(prompt)
        except ValueError:
            messages = []
        entry = talk.setdefault((side, turn - 1), {"calls": []})
        entry["calls"].append({"prompt": messages, "response": response, "error": error,
                               "latency": latency, "tries": tries, "structured": form,
                               **_tokens(asked, answered)})
    return talk


def _tokens(prompt_tokens, completion_tokens) -> dict:
    """A call's token counts as the record holds them, believed only in range (a record is
    a file anyone may have edited)."""
    usage = completion_usage({"usage": {"prompt_tokens": prompt_tokens,
                                        "completion_tokens": completion_tokens}})
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}


def add_talk(connection, ids, games) -> None:
    """Fill in the exchanges of recorded games (ids in the same order), when the record has
    any (one look at an older record or one without models)."""
    if not has_tables(connection) or connection.execute(
            "SELECT count(*) FROM llm_turn").fetchone()[0] == 0:
        return
    for game_id, game in zip(ids, games, strict=True):
        game.talk = game_talk(connection, game_id)
