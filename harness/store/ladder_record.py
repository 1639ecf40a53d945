"""The SQLite record of a ladder (`pdharness ladder --db FILE`): its identity (submissions
folder, seed, rules), its passes, its agents and their versions, and every game played.

A ladder's record grows for a whole term, a game at a time: each game is its own
transaction, so a pass killed at any moment (`kill -9`, a power cut) keeps every game it
finished and the next pass plays only what is still owed. The record is a file anyone can
edit: what is read back is checked (moves, scores, lengths) before it is rated or shown.
Plain tables, meant to be read by hand (`sqlite3 ladder.sqlite`).
"""
from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field

from harness.agents.agent_files import check_input_file
from harness.core.errors import HarnessError
from harness.core.output_paths import make_parent
from harness.core.package import __version__
from harness.core.rules import Scorer
from harness.core.safe_text import line
from harness.engine.game import GameRecord, Turn
from harness.isolation.handles.agent_handle import Fault

from .db import now

SCHEMA_VERSION = 1
MARK = "pdharness-ladder"

SCHEMA = """
CREATE TABLE ladder (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    kind             TEXT NOT NULL,            -- 'pdharness-ladder'
    schema_version   INTEGER NOT NULL,
    harness_version  TEXT NOT NULL,
    folder           TEXT NOT NULL,            -- SUBMISSIONS, resolved
    seed                     NOT NULL,         -- an integer (text beyond 63 bits)
    rules            TEXT NOT NULL,            -- JSON: the settings that shape a game
    games_per_pair   INTEGER NOT NULL,
    started_at       TEXT NOT NULL
);
CREATE TABLE pass (
    number       INTEGER PRIMARY KEY,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,                          -- NULL: stopped before its end
    games        INTEGER NOT NULL DEFAULT 0     -- games this pass played
);
CREATE TABLE agent (
    name       TEXT PRIMARY KEY,                -- the agent's (team's) name
    canonical  TEXT NOT NULL UNIQUE,            -- harness.core.seeds.canonical_name
    pseudonym  TEXT NOT NULL UNIQUE,
    reference  INTEGER NOT NULL,                -- 1: a built-in reference agent
    current    INTEGER REFERENCES version(id),  -- the version that plays (NULL: none)
    first_pass INTEGER NOT NULL
);
CREATE TABLE version (
    id        INTEGER PRIMARY KEY,
    agent     TEXT NOT NULL REFERENCES agent(name),
    digest    TEXT NOT NULL,                    -- SHA-256 of the content (a bundle's digest)
    language  TEXT NOT NULL,
    source    TEXT NOT NULL,                    -- the submission as found in SUBMISSIONS
    ok        INTEGER NOT NULL,                 -- passed validation
    problems  TEXT NOT NULL,                    -- JSON: [[code, message], ...]
    seen_in   INTEGER NOT NULL REFERENCES pass(number),
    UNIQUE (agent, digest)
);
CREATE TABLE notice (                           -- what a pass said of a submission
    pass     INTEGER NOT NULL REFERENCES pass(number),
    source   TEXT NOT NULL,
    agent    TEXT,
    status   TEXT NOT NULL,
    message  TEXT NOT NULL
);
CREATE TABLE game (
    id          INTEGER PRIMARY KEY,
    version_a   INTEGER NOT NULL REFERENCES version(id),   -- side a: the name sorting first
    version_b   INTEGER NOT NULL REFERENCES version(id),
    number      INTEGER NOT NULL,               -- 1..games_per_pair
    seed        INTEGER NOT NULL,
    length      INTEGER NOT NULL,
    score_a     INTEGER NOT NULL,
    score_b     INTEGER NOT NULL,
    intended_a  TEXT NOT NULL,                  -- every move of the game, in order
    played_a    TEXT NOT NULL,
    intended_b  TEXT NOT NULL,
    played_b    TEXT NOT NULL,
    faults      TEXT NOT NULL,                  -- JSON: [[side, turn, kind, message], ...]
    played_in   INTEGER NOT NULL REFERENCES pass(number),
    UNIQUE (version_a, version_b, number)
);
"""


@dataclass(frozen=True)
class Identity:
    """What makes a ladder the same ladder from pass to pass."""

    folder: str
    seed: int
    rules: dict
    games_per_pair: int


@dataclass
class Version:
    id: int
    agent: str
    digest: str
    language: str
    source: str
    ok: bool
    problems: list
    seen_in: int


@dataclass
class Agent:
    name: str
    canonical: str
    pseudonym: str
    reference: bool
    current: int | None
    first_pass: int
    versions: list[Version] = field(default_factory=list)


@dataclass(frozen=True)
class GameRow:
    id: int
    version_a: int
    version_b: int
    number: int
    seed: int
    length: int
    score: tuple[int, int]
    played_in: int


def stored(text) -> str:
    """Text as the record can hold it: a name or path that was not UTF-8 (kept with
    surrogate escapes) is stored with those bytes shown as escapes."""
    text = str(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return line(text)


class LadderRecord:
    def __init__(self, connection, path):
        self.connection = connection
        self.path = path

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path, identity: Identity, seed_given: bool) -> LadderRecord:
        """The ladder recorded at PATH, made with IDENTITY if the file is new; a one-line
        HarnessError for a file that is no ladder, or another ladder (folder, seed, rules,
        games per pair). Without `seed_given`, the record's own seed is taken."""
        if not os.path.lexists(path):
            make_parent(path, str(path))
            connection = _connect(path)
            with connection:
                connection.executescript(SCHEMA)
                connection.execute(
                    "INSERT INTO ladder VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (MARK, SCHEMA_VERSION, _version(), identity.folder,
                     _seed_value(identity.seed), json.dumps(identity.rules, sort_keys=True),
                     identity.games_per_pair, _now()))
            return cls(connection, path)

        check_input_file(path, "a ladder record")   # no link, FIFO or device opened
        connection = _connect(path, journal=False)   # another file is not changed
        record = cls(connection, path)
        try:
            record.check_identity(identity, seed_given)
        except HarnessError:
            connection.close()
            raise
        connection.execute("PRAGMA journal_mode = WAL")
        return record

    def check_identity(self, asked: Identity, seed_given: bool) -> None:
        try:
            row = self.connection.execute(
                "SELECT kind, schema_version, folder, seed, rules, games_per_pair "
                "FROM ladder").fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is None or row[0] != MARK:
            raise HarnessError(f"{self.path}: not a ladder's record (a ladder writes its own "
                               "file: give another --db)")
        kind, schema, folder, seed, rules, per_pair = row
        if schema != SCHEMA_VERSION:
            raise HarnessError(f"{self.path}: ladder record schema {schema}, this pdharness "
                               f"reads {SCHEMA_VERSION}")
        if folder != asked.folder:
            raise HarnessError(f"{self.path}: the ladder of {folder}, not of {asked.folder}: "
                               "give the record of this folder (or a new --db)")
        if seed_given and str(seed) != str(asked.seed):
            raise HarnessError(f"{self.path}: the ladder was started with another seed; "
                               "leave --seed out to go on with its own")
        if per_pair != asked.games_per_pair:
            raise HarnessError(f"{self.path}: the ladder plays --games-per-pair {per_pair}, "
                               f"not {asked.games_per_pair}")
        try:
            recorded = json.loads(rules)
        except (ValueError, TypeError, RecursionError):
            recorded = None
        if not isinstance(recorded, dict):
            raise HarnessError(f"{self.path}: its rules are not readable")
        for key in sorted(set(recorded) | set(asked.rules)):
            if recorded.get(key) != asked.rules.get(key):
                raise HarnessError(
                    f"{self.path}: the ladder was started with {key} = "
                    f"{_shown(recorded.get(key))}, this pass asks {_shown(asked.rules.get(key))}"
                    ": its games would not be comparable (give the same rules, or a new --db)")

    @property
    def seed(self) -> int:
        value = self.connection.execute("SELECT seed FROM ladder").fetchone()[0]
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):   # an edited record: 9e999 is REAL
            raise HarnessError(f"{self.path}: its seed is not a number") from None

    def close(self) -> None:
        self.connection.close()

    # -- passes ----------------------------------------------------------------------------
    def start_pass(self) -> int:
        with self.connection:
            cursor = self.connection.execute(
                "INSERT INTO pass (number, started_at) VALUES "
                "((SELECT coalesce(max(number), 0) + 1 FROM pass), ?)", (_now(),))
        return int(cursor.lastrowid or 0)

    def finish_pass(self, number: int, games: int) -> None:
        with self.connection:
            self.connection.execute("UPDATE pass SET finished_at = ?, games = ? WHERE "
                                    "number = ?", (_now(), games, number))

    def passes(self) -> list[tuple[int, str, str | None, int]]:
        return [tuple(row) for row in self.connection.execute(
            "SELECT number, started_at, finished_at, games FROM pass ORDER BY number")]

    def notice(self, number: int, source: str, agent: str | None, status: str,
               message: str) -> None:
        with self.connection:
            self.connection.execute("INSERT INTO notice VALUES (?, ?, ?, ?, ?)",
                                    (number, stored(source),
                                     None if agent is None else stored(agent), status,
                                     stored(message)))

    def notices(self, number: int) -> list[tuple[str, str | None, str, str]]:
        return [tuple(row) for row in self.connection.execute(
            "SELECT source, agent, status, message FROM notice WHERE pass = ? "
            "ORDER BY rowid", (number,))]

    # -- agents and versions ---------------------------------------------------------------
    def agents(self) -> dict[str, Agent]:
        """Every agent, by canonical name, with its versions (oldest first)."""
        found = {}
        for row in self.connection.execute(
                "SELECT name, canonical, pseudonym, reference, current, first_pass FROM agent"):
            found[row[1]] = Agent(row[0], row[1], row[2], bool(row[3]), row[4], row[5])
        by_name = {agent.name: agent for agent in found.values()}
        for row in self.connection.execute(
                "SELECT id, agent, digest, language, source, ok, problems, seen_in "
                "FROM version ORDER BY id"):
            agent = by_name.get(row[1])
            if agent is not None:
                agent.versions.append(Version(row[0], row[1], row[2], row[3], row[4],
                                              bool(row[5]), _problems(row[6]), row[7]))
        return found

    def add_agent(self, name: str, canonical: str, pseudonym: str, reference: bool,
                  number: int) -> None:
        with self.connection:
            self.connection.execute("INSERT INTO agent VALUES (?, ?, ?, ?, NULL, ?)",
                                    (name, canonical, pseudonym, int(reference), number))

    def add_version(self, agent: str, digest: str, language: str, source: str, ok: bool,
                    problems: list, number: int) -> int:
        with self.connection:
            cursor = self.connection.execute(
                "INSERT INTO version (agent, digest, language, source, ok, problems, "
                "seen_in) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (agent, digest, language, stored(source), int(ok),
                 json.dumps([[stored(code), stored(message)] for code, message in problems]),
                 number))
            if ok:
                self.connection.execute("UPDATE agent SET current = ? WHERE name = ?",
                                        (cursor.lastrowid, agent))
        return int(cursor.lastrowid or 0)

    def make_current(self, agent: str, version: int) -> None:
        with self.connection:
            self.connection.execute("UPDATE agent SET current = ? WHERE name = ?",
                                    (version, agent))

    # -- games -----------------------------------------------------------------------------
    def played_keys(self) -> set[tuple[int, int, int]]:
        return {tuple(row) for row in self.connection.execute(
            "SELECT version_a, version_b, number FROM game")}

    def add_game(self, version_a: int, version_b: int, game, number: int) -> None:
        """One finished game, in a transaction of its own (a killed pass keeps it)."""
        faults = [[side, turn, str(fault.kind), stored(fault.message)]
                  for side in "ab" for turn, fault in game.faults(side)]
        with self.connection:
            self.connection.execute(
                "INSERT OR IGNORE INTO game (version_a, version_b, number, seed, length, "
                "score_a, score_b, intended_a, played_a, intended_b, played_b, faults, "
                "played_in) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (version_a, version_b, game.round, game.seed, game.length, game.score[0],
                 game.score[1], "".join(game.intended_a), "".join(game.played_a),
                 "".join(game.intended_b), "".join(game.played_b), json.dumps(faults),
                 number))

    def game_rows(self) -> list[GameRow]:
        """Every game's result (not its moves), checked as far as a row alone can be."""
        rows = []
        for row in self.connection.execute(
                "SELECT id, version_a, version_b, number, seed, length, score_a, score_b, "
                "played_in FROM game ORDER BY id"):
            if not all(type(value) is int for value in row):
                raise HarnessError(f"{self.path}: game {_shown(row[0])}: not a game this "
                                   "ladder wrote")
            rows.append(GameRow(row[0], row[1], row[2], row[3], row[4], row[5],
                                (row[6], row[7]), row[8]))
        return rows

    def game(self, game_id: int, name_a: str, name_b: str, moves_per_turn: int, payoffs):
        """The game's turns as a GameRecord (harness/engine/game.py), for its page; None
        when the record's moves are not moves (an edited record)."""
        row = self.connection.execute(
            "SELECT number, length, seed, score_a, score_b, intended_a, played_a, "
            "intended_b, played_b, faults FROM game WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        number, length, seed, score_a, score_b, *moves, faults_text = row
        if not all(type(value) is int for value in (number, length, seed, score_a, score_b)):
            return None   # an edited record: a REAL 9e999 is no seed, a text no score
        if not all(isinstance(text, str) and set(text) <= {"C", "D"}
                   and len(text) == len(moves[0]) for text in moves) or \
                len(moves[0]) % moves_per_turn:
            return None
        faults = {}
        for entry in _json_list(faults_text):
            if (isinstance(entry, list) and len(entry) == 4 and entry[0] in ("a", "b")
                    and type(entry[1]) is int and all(isinstance(v, str) for v in entry[2:])):
                faults[entry[0], entry[1]] = Fault(entry[2], entry[3])
        record = GameRecord(number, name_a, name_b, length, seed, (score_a, score_b))
        score = Scorer(payoffs)
        running = [0, 0]
        for start in range(0, len(moves[0]), moves_per_turn):
            cut = [text[start:start + moves_per_turn] for text in moves]
            gained = score(cut[1], cut[3])
            running = [running[0] + gained[0], running[1] + gained[1]]
            turn = start // moves_per_turn + 1
            record.add_turn(Turn(cut[0], cut[1], cut[2], cut[3], faults.get(("a", turn)),
                                 faults.get(("b", turn)), (running[0], running[1])))
        return record


def _connect(path, journal: bool = True):
    try:
        connection = sqlite3.connect(str(path), timeout=30)
        if journal:
            connection.execute("PRAGMA journal_mode = WAL")   # a game per commit, cheaply
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as error:
        raise HarnessError(f"{path}: not a ladder's record ({error})") from error
    return connection


def _problems(text) -> list:
    return [tuple(entry) for entry in _json_list(text)
            if isinstance(entry, list) and len(entry) == 2
            and all(isinstance(value, str) for value in entry)]


def _json_list(text) -> list:
    try:
        found = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return []
    return found if isinstance(found, list) else []


def _shown(value) -> str:
    text = line(json.dumps(value) if not isinstance(value, str) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def _seed_value(seed: int):
    return seed if seed < 2 ** 63 else str(seed)


def _now() -> str:
    return now()


def _version() -> str:
    return __version__
