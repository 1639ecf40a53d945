"""The journal of model answers in a `--db` record: every response, written as soon as it
comes, so that `resume` never asks a model again for a turn it has answered, even in a
round the run did not finish (the record's games are written a round at a time).

An answer is looked up by what was asked: the agent, its game (the agent's seed, derived
from the tournament seed, round and pair), the turn, the attempt and the exact messages.
A resumed run asks the same questions (same seed, same earlier answers), so it finds the
same answers; anything else (a changed framing, another history) finds nothing and asks.
Only answers are kept: a call that failed is asked again.

The connection is per process (forked workers open their own) and per record; writes wait
for the recorder's round transactions (SQLite's lock, 30 s)."""
from __future__ import annotations

import hashlib
import json
import os
import threading
from typing import NamedTuple

from .server_answers import completion_usage

_LOCK = threading.Lock()
_STATE: dict = {"path": None, "pid": None, "connection": None}
_INHERITED: list = []   # a parent's connections, never closed in a forked worker (SQLite)


def use(path) -> None:
    """Answers go to (and come from) the record at `path`; None: no journal."""
    with _LOCK:
        _close()
        _STATE["path"] = None if path is None else str(path)


class Recorded(NamedTuple):
    response: str
    latency: float
    tries: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def key(name: str, agent_seed: int, turn: int, attempt: int, messages,
        form: str = "off") -> str:
    """The question's key; `form`, the request's structured form, is part of it unless off
    (so an answer asked in prose, before structured answers, keeps its key)."""
    asked = [name, agent_seed, turn, attempt, messages] + ([form] if form != "off" else [])
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


def lookup(entry: str, longest: int) -> Recorded | None:
    """The answer recorded for this question, or None. A record is a file anyone may have
    edited: at most `longest` characters of the response are read, a row whose values are
    not of their kinds is no answer (the model is asked), and a token count out of range
    is no count."""
    import sqlite3  # heavy: loaded only where a journal is read or written

    with _LOCK:
        connection = _connection()
        if connection is None:
            return None
        try:
            row = connection.execute("SELECT substr(response, 1, ?), latency, tries, "
                                     "prompt_tokens, completion_tokens FROM llm_journal "
                                     "WHERE key = ?", (longest, entry)).fetchone()
        except sqlite3.Error:
            return None
    if row is None or not isinstance(row[0], str) or \
            not isinstance(row[1], (int, float)) or not isinstance(row[2], int):
        return None
    usage = completion_usage({"usage": {"prompt_tokens": row[3], "completion_tokens": row[4]}})
    return Recorded(row[0], float(row[1]), max(1, min(row[2], 1000)), *usage)


def store(entry: str, response: str, latency: float, tries: int,
          prompt_tokens: int | None = None, completion_tokens: int | None = None) -> None:
    import sqlite3  # heavy: loaded only where a journal is read or written

    with _LOCK:
        connection = _connection()
        if connection is None:
            return
        try:
            with connection:
                connection.execute(
                    "INSERT OR REPLACE INTO llm_journal (key, response, latency, tries, "
                    "prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?)",
                    (entry, response, latency, tries, prompt_tokens, completion_tokens))
        except sqlite3.Error:
            pass   # the journal saves work on resume; the run goes on without it


def _connection():
    import sqlite3  # heavy: loaded only where a journal is read or written

    path = _STATE["path"]
    if path is None:
        return None
    if _STATE["connection"] is None or _STATE["pid"] != os.getpid():
        if _STATE["connection"] is not None:   # a forked worker's copy belongs to its parent
            _INHERITED.append(_STATE["connection"])
            _STATE["connection"] = None
        try:
            connection = sqlite3.connect(path, timeout=30, check_same_thread=False)
            connection.execute("CREATE TABLE IF NOT EXISTS llm_journal (key TEXT PRIMARY "
                               "KEY, response TEXT NOT NULL, latency REAL NOT NULL, "
                               "tries INTEGER NOT NULL, prompt_tokens INTEGER, "
                               "completion_tokens INTEGER)")
            _add_token_columns(connection)
        except sqlite3.Error:
            return None
        _STATE["connection"], _STATE["pid"] = connection, os.getpid()
    return _STATE["connection"]


def _add_token_columns(connection) -> None:
    """A journal made before tokens were counted gets their columns."""
    present = {row[1] for row in connection.execute("PRAGMA table_info(llm_journal)")}
    for column in ("prompt_tokens", "completion_tokens"):
        if column not in present:
            connection.execute(f"ALTER TABLE llm_journal ADD COLUMN {column} INTEGER")


def _close() -> None:
    connection = _STATE["connection"]
    if connection is not None:
        if _STATE["pid"] == os.getpid():
            connection.close()
        else:
            _INHERITED.append(connection)
    _STATE["connection"] = _STATE["pid"] = None
