"""Reading a record back: the run as a TournamentResult (the same object a live run makes,
so every printer, the report and the metrics work on records too), single games for
`show --game`, and the state a resumed run goes on from."""
from __future__ import annotations

import json
from functools import lru_cache

from harness.agents.llm.answer_schema import FORMS
from harness.agents.llm.record_rows import add_talk
from harness.agents.specs import ISOLATION_MODES, AgentSpec
from harness.core.errors import HarnessError
from harness.core.fault_policy import FAULT_POLICY
from harness.core.rules import Scorer
from harness.core.verdicts import FAULT_KINDS, STATUSES, FaultKind, Status
from harness.engine.game import GameRecord, Turn
from harness.engine.parameters import BUNDLE_MIB
from harness.engine.results import Entrant, RoundResult, TournamentResult, rank, settle_statuses
from harness.isolation.handles.agent_handle import Fault

from . import db
from .replicate_summary import summary_from_rows


class Record:
    def __init__(self, path):
        import sqlite3  # heavy (sqlite3): loaded only where used

        self.path = path
        self.connection = db.connect(path)
        try:
            check_types(self.connection, path)
            _check_replicate_ranks(self.connection, path)
            self.connection.row_factory = sqlite3.Row
            self.run = self.connection.execute("SELECT * FROM run").fetchone()
            self.seed = int(self.run["seed"])
            self.settings = _recorded_settings(self.run, path)
            self.runtimes = recorded_runtimes(
                self.run["runtimes"] if "runtimes" in self.run.keys() else None, path)
            self.max_bundle_mib = recorded_bundle_mib(
                self.run["max_bundle_mib"] if "max_bundle_mib" in self.run.keys() else None,
                path)
        except BaseException:
            self.connection.close()
            raise

    def close(self) -> None:
        self.connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def finished(self) -> bool:
        return self.run["finished_at"] is not None

    def tournament_done(self) -> bool:
        """Final ranks are written when the tournament ends (replicates may still be due)."""
        return self.query("SELECT count(*) FROM agent WHERE rank IS NULL")[0][0] == 0

    def query(self, sql: str, *parameters):
        return self.connection.execute(sql, parameters).fetchall()

    # -- agents ----------------------------------------------------------------------------
    def agent_rows(self):
        return self.query("SELECT * FROM agent ORDER BY position")

    def entrants(self) -> list[Entrant]:
        entrants = []
        for row in self.agent_rows():
            entrant = Entrant(AgentSpec(row["name"], row["language"], row["source"]),
                              Status(row["status"]), row["message"], row["output"] or "")
            entrant.sha256 = row["sha256"]   # the source as it was run (the report shows it)
            entrants.append(entrant)
        return entrants

    def find_agent(self, name: str):
        """The agent row whose name matches (case-insensitive, as agent names are)."""
        rows = self.query("SELECT * FROM agent WHERE lower(name) = lower(?)", name)
        return rows[0] if rows else None

    # -- rounds and games ------------------------------------------------------------------
    def rounds(self) -> list[RoundResult]:
        scores: dict[int, dict[str, int]] = {}
        dropped: dict[int, list[str]] = {}
        for row in self.query("SELECT * FROM round_score ORDER BY round, agent"):
            scores.setdefault(row["round"], {})[row["agent"]] = row["score"]
            if row["dropped"]:
                dropped.setdefault(row["round"], []).append(row["agent"])
        return [RoundResult(row["number"], row["game_length"], scores.get(row["number"], {}),
                            sorted(dropped.get(row["number"], [])))
                for row in self.query("SELECT * FROM round ORDER BY number")]

    def games(self, where: str = "", *parameters) -> list[GameRecord]:
        """Every game (or those matching `where`, SQL on table `game`) in the order played,
        each with all its turns, faults and running scores."""
        rows = self.query(f"SELECT * FROM game {where} ORDER BY id", *parameters)
        if not rows:
            return []
        ids = [row["id"] for row in rows]
        span = "game BETWEEN ? AND ?"
        faults = {(row["game"], row["turn"], row["side"]): Fault(FaultKind(row["kind"]), row["message"])
                  for row in self.query(f"SELECT * FROM fault WHERE {span}", ids[0], ids[-1])}
        moves = self.connection.execute(
            f"SELECT game, turn, intended_a, played_a, intended_b, played_b FROM move "
            f"WHERE {span} ORDER BY game, turn, idx", (ids[0], ids[-1]))
        turns = _turn_moves(moves)
        score = Scorer(self.settings.game.payoffs)
        games = [_game(row, turns.get(row["id"], {}), faults, score) for row in rows]

        add_talk(self.connection, ids, games)   # language-model agents' exchanges, if any
        return games

    def game(self, game_id: int) -> GameRecord | None:
        games = self.games("WHERE id = ?", game_id)
        return games[0] if games else None

    # -- the whole run ---------------------------------------------------------------------
    def dropped_in(self) -> dict[str, int | None]:
        return {row["name"]: row["dropped_in"] for row in self.agent_rows()}

    def result(self) -> TournamentResult:
        """The run as recorded; standings of an unfinished run are provisional (who is
        still in shares the top), and rank the agents out in its completed rounds as the
        finished run will: their statuses are derived from what the rounds recorded, as
        the run derives them at its end (the status column is written then), so an agent
        disqualified in round k ranks below the others out in round k already."""
        entrants = self.entrants()
        result = TournamentResult(self.seed, self.settings, entrants, self.rounds(),
                                  self.games())
        dropped_in = self.dropped_in()
        if not self.tournament_done():
            disqualified = {row["name"]: row["disqualified"] for row in self.agent_rows()
                            if row["disqualified"]}
            settle_statuses(entrants, result.games, disqualified, dropped_in)
        result.standings = rank([e.name for e in entrants], result.rounds, dropped_in,
                                result.games,
                                {e.name for e in entrants if FAULT_POLICY.disqualified(e.status)})
        replicates = self.replicates()
        if replicates is not None:
            result.replicates = replicates
        result.started_at = self.run["started_at"]
        result.harness_version = self.run["harness_version"]
        result.runtimes = self.runtimes
        return result

    def replicates(self):
        rows = self.query("SELECT * FROM replicate ORDER BY replicate, rank, agent")
        if not rows:
            return None

        return summary_from_rows(rows)


def _recorded_settings(row, path):
    """The run's parameters, or one line saying the record holds ones no run can have."""
    try:
        return db.settings_of(row)
    except HarnessError as error:
        raise HarnessError(f"{path}: not a record pdharness wrote: {error}") from None


def _check_replicate_ranks(connection, path) -> None:
    """Each replicate ranks its agents from 1 to how many they are: a one-line HarnessError
    for a rank no tournament gives (the replicates' summary counts places by rank)."""
    if not connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                              "AND name = 'replicate'").fetchone()[0]:
        return   # an older record
    found = connection.execute(
        "SELECT quote(rank), (SELECT count(*) FROM replicate AS same "
        "WHERE same.replicate = r.replicate) FROM replicate AS r WHERE rank < 1 OR rank > "
        "(SELECT count(*) FROM replicate AS same WHERE same.replicate = r.replicate) "
        "LIMIT 1").fetchone()
    if found:
        raise HarnessError(f"{path}: not a record pdharness wrote: replicate.rank holds "
                           f"{_shown(found[0])} in a replicate of {found[1]} agents")


MAX_RUNTIME_TEXT = 200   # a runtime's version, as pdharness writes it, is a short line


def recorded_runtimes(text, path) -> dict[str, str | None] | None:
    """The run's `runtimes` column ({language: version}, as JSON): None for a record made
    before they were recorded; a one-line HarnessError for anything pdharness does not
    write (a record is a file anyone can edit)."""
    if text is None:
        return None
    try:
        found = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        found = None
    if isinstance(found, dict) and all(
            isinstance(name, str) and len(name) <= MAX_RUNTIME_TEXT
            and (version is None or (isinstance(version, str)
                                     and len(version) <= MAX_RUNTIME_TEXT))
            for name, version in found.items()):
        return found
    raise HarnessError(f"{path}: not a record pdharness wrote: run.runtimes holds "
                       f"{_shown(repr(text))}, where pdharness writes a JSON object of versions")


def recorded_bundle_mib(value, path, column: str = "run.max_bundle_mib") -> int | None:
    """A record's `max_bundle_mib` column: the MiB a bundle could hold when the run
    started (None for a record made before it was kept); a one-line HarnessError naming
    the column for a value --max-bundle-mib does not take."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and BUNDLE_MIB.holds(value):
        return value
    raise HarnessError(f"{path}: not a record pdharness wrote: {column} holds "
                       f"{_shown(repr(value))}, where pdharness writes a whole number of MiB "
                       f"from {BUNDLE_MIB.low} to {BUNDLE_MIB.high}")


# -- what a record may hold ---------------------------------------------------------------
# Beyond the column types of db.SCHEMA (which SQLite does not enforce: any column takes
# text), the values pdharness reads as one of a few words.
_WORDS = {("agent", "status"): STATUSES,
          ("run", "isolation"): ISOLATION_MODES,
          ("fault", "side"): ("a", "b"), ("fault", "kind"): FAULT_KINDS,
          ("llm_call", "side"): ("a", "b"), ("llm_turn", "side"): ("a", "b"),
          ("llm_call", "structured"): FORMS,
          **{("move", column): ("C", "D")
             for column in ("intended_a", "played_a", "intended_b", "played_b")}}
_TYPE_NAMES = {"INTEGER": "an integer", "REAL": "a number", "TEXT": "text",
               "BLOB": "text or bytes",
               "": "an integer (or its digits, as text)"}
_SEED_DIGITS = 4000  # a longer integer is beyond what Python converts from text


@lru_cache(maxsize=None)
def _expected_columns(declared: str):
    """{table: [(column, declared type, may be null)]} and [(table, column, table, column)]
    references, as the schema `declared` says (read from an empty database made with it)."""
    import sqlite3  # heavy (sqlite3): loaded only where used

    schema = sqlite3.connect(":memory:")
    try:
        schema.executescript(declared)
        tables = [name for (name,) in schema.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]
        columns = {table: [(name, kind.upper(), not notnull and not primary)
                           for _, name, kind, notnull, _, primary in
                           schema.execute(f"PRAGMA table_info({table})")]
                   for table in tables}
        references = [(table, row[3], row[2], row[4]) for table in tables
                      for row in schema.execute(f"PRAGMA foreign_key_list({table})")]
    finally:
        schema.close()
    return columns, references


def _condition(table, column, kind, nullable, words) -> str:
    """SQL true when `column` holds what pdharness writes there."""
    quoted = f'"{column}"'
    if kind == "INTEGER":
        holds = f"typeof({quoted}) = 'integer'"
    elif kind == "REAL":
        holds = f"typeof({quoted}) IN ('integer', 'real')"
    elif kind == "TEXT":
        holds = f"typeof({quoted}) = 'text'"
    elif kind == "BLOB":
        holds = f"typeof({quoted}) IN ('text', 'blob')"
    else:  # the run's seed: an integer, or its decimal digits beyond 64 bits
        holds = (f"(typeof({quoted}) = 'integer' OR (typeof({quoted}) = 'text' AND "
                 f"{quoted} GLOB '[0-9]*' AND NOT {quoted} GLOB '*[^0-9]*' AND "
                 f"length({quoted}) <= {_SEED_DIGITS}))")
    allowed = words.get((table, column))
    if allowed:
        holds += f" AND {quoted} IN ({', '.join(repr(str(w)) for w in allowed)})"
    return f"({quoted} IS NULL OR {holds})" if nullable else f"({holds})"


def check_types(connection, path, schema: str = db.SCHEMA, words=None,
                added=db.ADDED_COLUMNS, added_tables=db.ADDED_TABLES) -> None:
    """A one-line HarnessError unless every table and column pdharness reads is there and
    holds what pdharness writes (its type, its few words, names and games that exist).
    A record is a file anyone can edit; what is read from it is printed, put in a web
    page and used to resume a run, so nothing in it is taken on trust. One scan per
    table, in SQLite: about a second for a million moves."""
    import sqlite3  # heavy (sqlite3): loaded only where used

    columns, references = _expected_columns(schema)
    words = _WORDS if words is None else words
    where = f"{path}: not a record pdharness wrote"
    try:
        absent = set()
        for table, expected in columns.items():
            present = {row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')}
            if not present and table in added_tables:   # an older record
                absent.add(table)
                continue
            for column, _, _ in expected:
                if column not in present and (table, column) not in added:
                    raise HarnessError(f"{where}: table {table} has no column {column}")
            expected = [entry for entry in expected if entry[0] in present]
            found = connection.execute(_first_wrong_value(table, expected, words)).fetchone()
            if found:
                index = list(found[:len(expected)]).index(0)
                column, kind, _ = expected[index]
                allowed = words.get((table, column))
                wanted = " or ".join(allowed) if allowed else _TYPE_NAMES[kind]
                raise HarnessError(f"{where}: {table}.{column} holds "
                                   f"{_shown(found[len(expected) + index])}, "
                                   f"where pdharness writes {wanted}")
        for table, column, target, target_column in references:
            if table in absent:
                continue
            found = connection.execute(
                f'SELECT quote("{column}") FROM "{table}" WHERE "{column}" IS NOT NULL AND '
                f'"{column}" NOT IN (SELECT "{target_column}" FROM "{target}") '
                "LIMIT 1").fetchone()
            if found:
                raise HarnessError(f"{where}: {table}.{column} holds {_shown(found[0])}, "
                                   f"but no {target}.{target_column} of the record has that value")
    except sqlite3.DatabaseError as error:
        raise HarnessError(f"{where}: {error}") from error


def _first_wrong_value(table, expected, words) -> str:
    """SQL giving, for the first row of `table` holding a value pdharness does not write,
    whether each column's value is right (1/0) and then each value quoted; else no row.
    The test is one flat condition, so a good table costs one plain scan."""
    right = [_condition(table, column, kind, nullable, words)
             for column, kind, nullable in expected]
    quoted = [f'quote("{column}")' for column, _, _ in expected]
    return (f"SELECT {', '.join(right + quoted)} FROM \"{table}\" "
            f"WHERE NOT ({' AND '.join(right)}) LIMIT 1")


def _shown(quoted: str, limit: int = 60) -> str:
    """A value as SQLite quotes it (text in '', blobs as X'..'), cut to a readable size."""
    return quoted if len(quoted) <= limit else quoted[:limit] + "..."


def _turn_moves(cursor) -> dict[int, dict[int, list[str]]]:
    """{game: {turn: [intended_a, played_a, intended_b, played_b]}} with the moves of each
    turn joined in order."""
    out: dict[int, dict[int, list[str]]] = {}
    for game_id, turn, intended_a, played_a, intended_b, played_b in cursor:
        by_turn = out.setdefault(game_id, {})
        moves = by_turn.get(turn)
        if moves is None:
            by_turn[turn] = [intended_a, played_a, intended_b, played_b]
        else:
            moves[0] += intended_a
            moves[1] += played_a
            moves[2] += intended_b
            moves[3] += played_b
    return out


def _game(row, turn_moves, faults, score) -> GameRecord:
    game_id = row["id"]
    record = GameRecord(row["round"], row["a"], row["b"], row["length"], int(row["seed"]),
                        (row["score_a"], row["score_b"]))
    score_a = score_b = 0
    for number in sorted(turn_moves):
        intended_a, played_a, intended_b, played_b = turn_moves[number]
        gained_a, gained_b = score(played_a, played_b)
        score_a += gained_a
        score_b += gained_b
        record.add_turn(Turn(intended_a, played_a, intended_b, played_b,
                             faults.get((game_id, number, "a")),
                             faults.get((game_id, number, "b")), (score_a, score_b)))
    record.warnings = {side: row[f"warning_{side}"] for side in "ab"
                       if row[f"warning_{side}"] is not None}
    return record
