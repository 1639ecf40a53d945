"""The SQLite record of a run: its schema, opening it, and the run's parameters as a row.

The schema is meant to be read by hand (`sqlite3 run.sqlite`), so it is plain: one row per
agent, round, game, fault and move, with two views that save the usual joins. It is
documented in docs/schema.md (tests/test_docs.py checks that every table and column
is there).
"""
from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from harness.agents.agent_files import check_input_file
from harness.agents.bundles import max_mib
from harness.core.errors import HarnessError
from harness.core.output_paths import make_parent
from harness.core.package import __version__

from .settings_columns import columns, settings_from

# imports inside functions here are deferred: sqlite3 is heavy, loaded only where used

SCHEMA_VERSION = 1

# Columns added to schema 1 after records were made with it: an older record lacks them
# (and settings_of reads them as optional). Add a new column here too.
ADDED_COLUMNS = {("run", "horizon"), ("run", "stop_prob"), ("run", "outputs"),
                 ("run", "runtimes"), ("run", "load_timeout"), ("run", "agent_packages"),
                 ("run", "max_bundle_mib"),
                 ("llm_call", "structured"), ("llm_call", "prompt_tokens"),
                 ("llm_call", "completion_tokens"), ("llm_journal", "prompt_tokens"),
                 ("llm_journal", "completion_tokens")}
# Tables added likewise (language-model agents): an older record has none of them.
ADDED_TABLES = {"llm_agent", "llm_call", "llm_turn", "llm_journal"}

SCHEMA = """
CREATE TABLE run (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    schema_version    INTEGER NOT NULL,
    harness_version   TEXT NOT NULL,
    seed                      NOT NULL,  -- an integer (text only if beyond 64 bits)
    flip_start        REAL NOT NULL,
    flip_decay        REAL NOT NULL,
    decay_mode        TEXT NOT NULL,
    length_min        INTEGER NOT NULL,
    length_max        INTEGER NOT NULL,
    horizon           TEXT NOT NULL DEFAULT 'uniform',  -- uniform, fixed or geometric
    stop_prob         REAL,                             -- geometric: chance to end a turn
    moves_per_turn    INTEGER NOT NULL,
    payoff_t          INTEGER NOT NULL,
    payoff_r          INTEGER NOT NULL,
    payoff_p          INTEGER NOT NULL,
    payoff_s          INTEGER NOT NULL,
    timeout           REAL NOT NULL,
    default_answer    TEXT NOT NULL,
    isolation         TEXT NOT NULL,
    memory_limit      INTEGER NOT NULL,
    load_timeout      REAL NOT NULL DEFAULT 10.0,       -- seconds to load an agent's file
    agent_packages    TEXT,   -- JSON: the pip requirements agents may import (null: none)
    max_bundle_mib    INTEGER,  -- MiB a bundle may hold, expanded (null: an older record)
    jobs              INTEGER,
    max_rounds        INTEGER,
    max_faults        INTEGER,
    disqualify_broken INTEGER NOT NULL,
    replicates        INTEGER NOT NULL DEFAULT 0,
    command           TEXT,
    outputs           TEXT,   -- JSON: the files the run asked for (present/outputs.py)
    runtimes          TEXT,   -- JSON: {language: runtime version}, e.g. "lisp": "SBCL 2.2.9"
    started_at        TEXT NOT NULL,
    finished_at       TEXT
);
CREATE TABLE agent (
    name         TEXT PRIMARY KEY,
    position     INTEGER NOT NULL,
    language     TEXT NOT NULL,
    source       TEXT NOT NULL,
    path         TEXT,
    sha256       TEXT,
    status       TEXT NOT NULL,
    message      TEXT,
    dropped_in   INTEGER,
    disqualified TEXT,
    rank         INTEGER,
    score        INTEGER,
    output       TEXT
);
CREATE TABLE round (
    number       INTEGER PRIMARY KEY,
    game_length  INTEGER NOT NULL,
    finished_at  TEXT NOT NULL
);
CREATE TABLE round_score (
    round    INTEGER NOT NULL REFERENCES round(number),
    agent    TEXT NOT NULL REFERENCES agent(name),
    score    INTEGER NOT NULL,
    dropped  INTEGER NOT NULL,
    PRIMARY KEY (round, agent)
);
CREATE TABLE game (
    id         INTEGER PRIMARY KEY,
    round      INTEGER NOT NULL REFERENCES round(number),
    a          TEXT NOT NULL REFERENCES agent(name),
    b          TEXT NOT NULL REFERENCES agent(name),
    length     INTEGER NOT NULL,
    seed       INTEGER NOT NULL,
    score_a    INTEGER NOT NULL,
    score_b    INTEGER NOT NULL,
    faults_a   INTEGER NOT NULL,
    faults_b   INTEGER NOT NULL,
    warning_a  TEXT,
    warning_b  TEXT
);
CREATE INDEX game_by_round ON game (round);
CREATE TABLE fault (
    game     INTEGER NOT NULL REFERENCES game(id),
    turn     INTEGER NOT NULL,
    side     TEXT NOT NULL CHECK (side IN ('a', 'b')),
    agent    TEXT NOT NULL REFERENCES agent(name),
    kind     TEXT NOT NULL,
    message  TEXT NOT NULL,
    PRIMARY KEY (game, turn, side)
);
CREATE TABLE move (
    game        INTEGER NOT NULL REFERENCES game(id),
    turn        INTEGER NOT NULL,
    idx         INTEGER NOT NULL,
    intended_a  TEXT NOT NULL,
    played_a    TEXT NOT NULL,
    intended_b  TEXT NOT NULL,
    played_b    TEXT NOT NULL,
    PRIMARY KEY (game, turn, idx)
) WITHOUT ROWID;
CREATE TABLE replicate (
    replicate   INTEGER NOT NULL,
    seed        INTEGER NOT NULL,
    agent       TEXT NOT NULL REFERENCES agent(name),
    rank        INTEGER NOT NULL,
    score       INTEGER NOT NULL,
    dropped_in  INTEGER,
    PRIMARY KEY (replicate, agent)
);
CREATE TABLE llm_agent (                -- a language-model agent as declared (no API key)
    name     TEXT PRIMARY KEY REFERENCES agent(name),
    config   TEXT NOT NULL                -- JSON: endpoint, model, framing's text, ...
);
CREATE TABLE llm_call (                 -- every request to a model and its response
    game      INTEGER NOT NULL REFERENCES game(id),
    turn      INTEGER NOT NULL,
    side      TEXT NOT NULL CHECK (side IN ('a', 'b')),
    attempt   INTEGER NOT NULL,           -- 1, then the corrective prompts' answers
    prompt    TEXT NOT NULL,              -- JSON: the messages sent
    response  TEXT,                       -- the model's text (capped), NULL when it failed
    error     TEXT,
    latency   REAL NOT NULL,              -- seconds, retries and waits included
    tries     INTEGER NOT NULL,           -- HTTP requests made (retries on 429, 5xx, ...)
    structured         TEXT,              -- the form asked in: json_schema, json_object, off
    prompt_tokens      INTEGER,           -- as the server's usage said (NULL: not said,
    completion_tokens  INTEGER,           -- or not a count to believe)
    PRIMARY KEY (game, turn, side, attempt)
);
CREATE TABLE llm_turn (                 -- a model's turn: its chat and parse outcome
    game          INTEGER NOT NULL REFERENCES game(id),
    turn          INTEGER NOT NULL,
    side          TEXT NOT NULL CHECK (side IN ('a', 'b')),
    first         INTEGER,                -- chat phase: 1 spoke first, 0 second
    heard         TEXT,                   -- what it was shown of the other's chat
    chat          TEXT,
    chat_problem  TEXT,                   -- why its chat was not shown
    parse_error   TEXT,
    PRIMARY KEY (game, turn, side)
);
CREATE TABLE llm_journal (              -- each model answer as it came (harness/agents/llm/journal.py)
    key       TEXT PRIMARY KEY,           -- sha256 of agent, game, turn, attempt, messages
    response  TEXT NOT NULL,
    latency   REAL NOT NULL,
    tries     INTEGER NOT NULL,
    prompt_tokens      INTEGER,
    completion_tokens  INTEGER
);
CREATE VIEW agent_move AS
    SELECT g.round, m.game, m.turn, m.idx, g.a AS agent, g.b AS opponent,
           m.intended_a AS intended, m.played_a AS played, m.played_b AS opponent_played
      FROM move m JOIN game g ON g.id = m.game
    UNION ALL
    SELECT g.round, m.game, m.turn, m.idx, g.b, g.a, m.intended_b, m.played_b, m.played_a
      FROM move m JOIN game g ON g.id = m.game;
CREATE VIEW standings AS
    SELECT rank, name AS agent, score, dropped_in, status, message
      FROM agent ORDER BY rank IS NULL, rank, name;
"""


def connect(path, write: bool = False):
    """A connection to an existing record, or a clear error (never a traceback). Reading
    works on a record archived read-only too."""
    import sqlite3

    if not os.path.lexists(path):
        raise HarnessError(f"{path}: no such record (make one with tournament --db {path})")

    check_input_file(path, "a record")   # no link followed, no FIFO or device opened
    mode = "rw" if write or os.access(path, os.W_OK) else "ro"
    try:
        connection = sqlite3.connect(f"file:{quote(str(Path(path).resolve()))}?mode={mode}",
                                     uri=True, timeout=30)
        version = connection.execute("SELECT schema_version FROM run").fetchone()
    except sqlite3.DatabaseError as error:
        if is_experiment_record(path):
            raise HarnessError(f"{path}: the record of an experiment, not of one run: "
                               f"pdharness resume {path} prints its comparison") from error
        raise HarnessError(f"{path}: not a pdharness record ({error})") from error
    if version is None:
        raise HarnessError(f"{path}: the record holds no run")
    if version[0] != SCHEMA_VERSION:
        raise HarnessError(f"{path}: record schema {version[0]}, this pdharness reads "
                           f"{SCHEMA_VERSION}")
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def create(path, schema: str = SCHEMA):
    """A new, empty record. Refuses to replace an existing file: a record is evidence."""
    import sqlite3

    target = Path(path)
    if os.path.lexists(target):
        raise HarnessError(taken_message(target, str(path)))

    make_parent(target, str(path))
    try:
        connection = sqlite3.connect(str(target), timeout=30)
        connection.executescript(schema)
    except sqlite3.Error as error:
        raise HarnessError(f"{path}: cannot write the record: {error}") from error
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def taken_message(target, shown: str) -> str:
    """Why a new record cannot go to TARGET, which exists, and what to do: a complete run
    is there to be read, an unfinished one to be resumed, anything else left alone; each
    says how to name another file."""
    other = _free_name(target)
    choose = f"to record a new run, give another file: --db {other}"
    state = _record_state(target)
    if state == "complete":
        return (f"{shown} holds a complete run (see it: pdharness show {shown}); {choose}")
    if state == "unfinished":
        return (f"{shown} holds an unfinished run (finish it: pdharness resume {shown}); "
                f"{choose}")
    return f"{shown} already exists and is not replaced; {choose}"


def _free_name(target):
    """`run-2.sqlite` beside `run.sqlite` (the first number free)."""
    number = 2
    while True:
        candidate = target.with_name(f"{target.stem}-{number}{target.suffix}")
        if not candidate.exists():
            return candidate
        number += 1


def _record_state(target) -> str | None:
    """"complete" or "unfinished" for a pdharness record (of one run or an experiment),
    None for any other file. Read only, and only a regular file (no link, no FIFO)."""
    import sqlite3

    try:
        if not stat.S_ISREG(os.lstat(target).st_mode):
            return None
        uri = f"file:{quote(str(target.resolve()))}?mode=ro"
        with sqlite3.connect(uri, uri=True, timeout=5) as connection:
            tables = {name for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            table = "experiment" if "experiment" in tables else "run"
            if table not in tables:
                return None
            row = connection.execute(f"SELECT finished_at FROM {table}").fetchone()
    except (OSError, sqlite3.Error):
        return None
    if row is None:
        return None
    return "unfinished" if row[0] is None else "complete"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def seed_value(seed: int):
    """SQLite integers hold 64 bits; a larger seed (the command line allows one) is kept
    exactly, as text."""
    return seed if seed < 2 ** 63 else str(seed)


def run_row(seed: int, settings, replicates: int, command: str | None,
            outputs: str | None = None, runtimes: dict | None = None) -> dict:
    return {
        "id": 1, "schema_version": SCHEMA_VERSION, "harness_version": __version__,
        "seed": seed_value(seed), **columns(settings), "replicates": replicates,
        "max_bundle_mib": max_mib(),   # applied as bundles open, not a Setting
        "command": command, "outputs": outputs,
        "runtimes": json.dumps(runtimes) if runtimes is not None else None,
        "started_at": now(), "finished_at": None,
    }


def settings_of(row):
    """The Settings a run was started with, from its `run` row (a sqlite3.Row); columns an
    older record lacks (horizon, stop_prob) take their defaults."""
    return settings_from(row)


def is_experiment_record(path) -> bool:
    """Whether `path` is an experiment's record (harness/run/experiment/record.py writes
    them), which a tournament's reader refuses in one line."""
    import sqlite3

    try:  # SQLite would open a FIFO and wait on it: only a regular file, no link
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
    except OSError:
        return False
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT count(*) FROM sqlite_master WHERE type = "
                                      "'table' AND name = 'experiment'").fetchone()[0] == 1
    except sqlite3.Error:
        return False
