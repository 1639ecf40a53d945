"""The SQLite record of an experiment: the file it ran (kept whole), its seed, and one row
per finished tournament and per agent placing in it.

Each tournament goes in with one transaction when it is finished, so an experiment stopped
at any moment (Ctrl-C, kill -9) keeps every finished tournament and nothing half-written;
`pdharness resume X.sqlite` plays the rest, and since every tournament depends only on its
own seed the result equals the uninterrupted one.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from harness.agents.agent_types import definition
from harness.agents.bundles import max_mib
from harness.agents.llm.record_rows import CALL_COLUMNS, add_call_columns
from harness.core.errors import HarnessError
from harness.core.package import __version__
from harness.engine.parameters import MIB
from harness.present.formats import params_dict
from harness.store import db
from harness.store.db import is_experiment_record
from harness.store.reader import check_types, recorded_bundle_mib
from harness.store.settings_columns import recorded_packages

from ..cells import UnitResult

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE experiment (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    schema_version   INTEGER NOT NULL,
    harness_version  TEXT NOT NULL,
    seed                     NOT NULL,
    file             TEXT NOT NULL,      -- the experiment file (agent paths are relative to it)
    content          BLOB NOT NULL,      -- the file as it was read
    isolation        TEXT,               -- --isolation given on the command line, if any
    agent_packages   TEXT,               -- JSON: --agent-package, given or the course file's
    max_bundle_mib   INTEGER,            -- MiB a bundle may hold, expanded (null: older)
    replicates       INTEGER NOT NULL,
    command          TEXT,
    started_at       TEXT NOT NULL,
    finished_at      TEXT
);
CREATE TABLE condition (
    number      INTEGER PRIMARY KEY,      -- 1, 2, ... in the file's order
    name        TEXT NOT NULL UNIQUE,
    params      TEXT NOT NULL             -- its tournament parameters, as JSON (and its
                                          -- memory_limit in MiB: resume checks the limits)
);
CREATE TABLE agent_type (
    condition   INTEGER NOT NULL REFERENCES condition(number),
    id          TEXT NOT NULL,
    agent       TEXT NOT NULL,
    count       INTEGER NOT NULL,
    definition  TEXT NOT NULL,            -- what it is (a file's hash): checked on resume
    PRIMARY KEY (condition, id)
);
CREATE TABLE tournament (
    condition   INTEGER NOT NULL REFERENCES condition(number),
    replicate   INTEGER NOT NULL,
    seed        INTEGER NOT NULL,
    rounds      INTEGER NOT NULL,
    games       INTEGER NOT NULL,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (condition, replicate)
);
CREATE TABLE placing (
    condition   INTEGER NOT NULL,
    replicate   INTEGER NOT NULL,
    agent       TEXT NOT NULL,            -- type#k
    type        TEXT NOT NULL,
    rank        INTEGER NOT NULL,
    score       INTEGER NOT NULL,
    dropped_in  INTEGER,
    cooperated  INTEGER NOT NULL,         -- moves it chose to cooperate (before flips)
    moves       INTEGER NOT NULL,         -- moves it played
    faults      INTEGER NOT NULL,
    PRIMARY KEY (condition, replicate, agent),
    FOREIGN KEY (condition, replicate) REFERENCES tournament(condition, replicate)
);
CREATE TABLE llm_call (                   -- every request to a language model
    condition   INTEGER NOT NULL,
    replicate   INTEGER NOT NULL,
    game        INTEGER NOT NULL,         -- 1, 2, ... in the tournament's order of play
    turn        INTEGER NOT NULL,
    side        TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    prompt      TEXT NOT NULL,            -- JSON: the messages sent
    response    TEXT,
    error       TEXT,
    latency     REAL NOT NULL,
    tries       INTEGER NOT NULL,
    structured         TEXT,              -- the form asked in (json_schema, json_object, off)
    prompt_tokens      INTEGER,           -- the server's usage (NULL: not said or not believed)
    completion_tokens  INTEGER,
    PRIMARY KEY (condition, replicate, game, turn, side, attempt),
    FOREIGN KEY (condition, replicate) REFERENCES tournament(condition, replicate)
);
CREATE TABLE llm_turn (
    condition     INTEGER NOT NULL,
    replicate     INTEGER NOT NULL,
    game          INTEGER NOT NULL,
    turn          INTEGER NOT NULL,
    side          TEXT NOT NULL,
    first         INTEGER,
    heard         TEXT,
    chat          TEXT,
    chat_problem  TEXT,
    parse_error   TEXT,
    PRIMARY KEY (condition, replicate, game, turn, side),
    FOREIGN KEY (condition, replicate) REFERENCES tournament(condition, replicate)
);
"""
ADDED_TABLES = frozenset({"llm_call", "llm_turn"})   # older experiment records lack them
ADDED_COLUMNS = frozenset({("llm_call", "structured"), ("llm_call", "prompt_tokens"),
                           ("llm_call", "completion_tokens"), ("experiment", "agent_packages"),
                           ("experiment", "max_bundle_mib")})


class ExperimentRecord:
    def __init__(self, connection, path):
        self.connection, self.path = connection, Path(path)

    @classmethod
    def create(cls, path, experiment, seed: int, isolation: str | None,
               command: str | None) -> "ExperimentRecord":
        connection = db.create(path, SCHEMA)
        connection.row_factory = sqlite3.Row
        with connection:
            connection.execute(
                "INSERT INTO experiment (id, schema_version, harness_version, seed, file, "
                "content, isolation, agent_packages, max_bundle_mib, replicates, command, "
                "started_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (SCHEMA_VERSION, _version(), db.seed_value(seed),
                 str(experiment.path.resolve()), experiment.content, isolation,
                 json.dumps(list(experiment.agent_packages))
                 if experiment.agent_packages else None,
                 max_mib(), experiment.replicates, command, db.now()))
            for number, condition in enumerate(experiment.conditions, 1):
                connection.execute("INSERT INTO condition VALUES (?, ?, ?)",
                                   (number, condition.name, json.dumps(recorded_params(condition))))
                connection.executemany(
                    "INSERT INTO agent_type VALUES (?, ?, ?, ?, ?)",
                    [(number, t.id, t.agent, t.count, definition(t.template))
                     for t in condition.types])
        return cls(connection, path)

    @classmethod
    def reopen(cls, path) -> "ExperimentRecord":
        if not is_experiment_record(path):
            raise HarnessError(f"{path}: not an experiment record")

        connection = sqlite3.connect(str(path), timeout=30)
        try:  # a hand-edited record is one line naming what is wrong, as for a tournament's
            check_types(connection, path, SCHEMA, words={}, added=ADDED_COLUMNS,
                        added_tables=ADDED_TABLES)
            add_call_columns(connection)   # an older record's calls get the token columns
        except BaseException:
            connection.close()
            raise
        connection.row_factory = sqlite3.Row
        return cls(connection, path)

    def close(self) -> None:
        self.connection.close()

    def add(self, unit) -> None:
        """One finished tournament, in one transaction."""
        with self.connection:
            self.connection.execute("INSERT INTO tournament VALUES (?, ?, ?, ?, ?, ?)",
                                    (unit.condition, unit.replicate, db.seed_value(unit.seed),
                                     unit.rounds, unit.games, db.now()))
            self.connection.executemany(
                "INSERT INTO placing VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(unit.condition, unit.replicate, *placing) for placing in unit.placings])
            if unit.llm_calls:   # language models' requests and turns, with their tournament
                self.connection.executemany(
                    f"INSERT INTO llm_call (condition, replicate, {', '.join(CALL_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * (2 + len(CALL_COLUMNS)))})",
                    [(unit.condition, unit.replicate, *row) for row in unit.llm_calls])
                self.connection.executemany(
                    "INSERT INTO llm_turn VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(unit.condition, unit.replicate, *row) for row in unit.llm_turns])

    def complete(self) -> None:
        with self.connection:
            self.connection.execute("UPDATE experiment SET finished_at = ?", (db.now(),))

    # -- reading -------------------------------------------------------------------------
    def header(self) -> sqlite3.Row:
        return self.connection.execute("SELECT * FROM experiment").fetchone()

    def max_bundle_mib(self, header) -> int | None:
        """The MiB a bundle could hold when the experiment started (None: an older record)."""
        return recorded_bundle_mib(
            header["max_bundle_mib"] if "max_bundle_mib" in header.keys() else None, self.path,
            "experiment.max_bundle_mib")

    def agent_packages(self, header) -> tuple[str, ...]:
        """What agents could import as the experiment's command line declared it (none in
        a record made before it was kept); one line for anything pdharness does not write."""
        text = header["agent_packages"] if "agent_packages" in header.keys() else None
        try:
            return recorded_packages(text, "experiment.agent_packages")
        except HarnessError as error:
            raise HarnessError(f"{self.path}: not a record pdharness wrote: {error}") from None

    def done(self) -> set[tuple[int, int]]:
        return {(row[0], row[1]) for row in
                self.connection.execute("SELECT condition, replicate FROM tournament")}

    def units(self) -> list:
        tournaments = self.connection.execute(
            "SELECT * FROM tournament ORDER BY condition, replicate").fetchall()
        placings: dict[tuple[int, int], list[tuple]] = {}
        for row in self.connection.execute(
                "SELECT * FROM placing ORDER BY condition, replicate, rank, agent"):
            placings.setdefault((row["condition"], row["replicate"]), []).append(
                tuple(row)[2:])
        return [UnitResult(row["condition"], row["replicate"], int(row["seed"]), row["rounds"],
                           row["games"], placings.get((row["condition"], row["replicate"]), []))
                for row in tournaments]

    def limits(self) -> dict:
        """{condition number: (timeout, memory limit in MiB or None)} as recorded (an older
        record, or an edited one, may lack them: None)."""
        limits = {}
        for row in self.connection.execute("SELECT number, params FROM condition"):
            try:
                params = json.loads(row["params"])
            except (TypeError, ValueError, RecursionError):
                params = None
            params = params if isinstance(params, dict) else {}
            limits[row["number"]] = (params.get("timeout"), params.get("memory_limit"))
        return limits

    def definitions(self) -> dict:
        return {(row["condition"], row["id"]): row["definition"] for row in
                self.connection.execute("SELECT * FROM agent_type")}


def recorded_params(condition) -> dict:
    """What the record keeps of a condition's parameters: its JSON ones and its memory limit
    (which the JSON leaves out), so resume can tell a run with other limits apart."""
    return dict(params_of(condition),
                memory_limit=condition.settings.isolation.memory_limit // MIB)


def params_of(condition) -> dict:
    return params_dict(condition.settings)


def _version() -> str:
    return __version__
