"""Writing a run into its record as it is played: a tournament Observer.

Each completed round goes in with ONE transaction (its scores, drops, games, faults and
every move), so a run stopped at any moment - Ctrl-C, `kill -9`, a power cut - keeps every
completed round and nothing half-written; `pdharness resume` goes on from there.
"""
from __future__ import annotations

from pathlib import Path

from harness.agents.llm.record_rows import (
    CALL_COLUMNS,
    add_call_columns,
    agent_rows,
    call_rows,
    turn_rows,
)
from harness.agents.specs import runtime_versions
from harness.core.verdicts import Status
from harness.engine.tournament import Observer

from . import db
from .metrics import columns


class Recorder(Observer):
    def __init__(self, connection, path):
        self.connection = connection
        self.path = Path(path)

    # -- making or reopening a record ------------------------------------------------------
    @classmethod
    def create(cls, path, specs, seed: int, settings, replicates: int = 0,
               command: str | None = None, outputs: str | None = None) -> "Recorder":
        """A new record holding the parameters, seed and agents, before anything is played,
        so bad paths fail fast and even a run killed while loading leaves its parameters."""
        connection = db.create(path)
        row = db.run_row(seed, settings, replicates, command, outputs,
                         runtime_versions(specs))
        with connection:
            connection.execute(f"INSERT INTO run ({', '.join(row)}) VALUES "
                               f"({', '.join('?' * len(row))})", list(row.values()))
            connection.executemany(
                "INSERT INTO agent (name, position, language, source, path, sha256, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(spec.name, position, spec.language, spec.source,
                  str(spec.path.resolve()) if spec.path else None,
                  spec.sha256() if spec.path else None, Status.OK)
                 for position, spec in enumerate(specs, 1)])

            connection.executemany("INSERT INTO llm_agent VALUES (?, ?)", agent_rows(specs))
        return cls(connection, path)

    @classmethod
    def reopen(cls, path) -> "Recorder":
        connection = db.connect(path, write=True)

        add_call_columns(connection)   # a record made before tokens were counted
        return cls(connection, path)

    def close(self) -> None:
        self.connection.close()

    def rounds_kept(self) -> int:
        return self.connection.execute("SELECT count(*) FROM round").fetchone()[0]

    # -- the Observer hooks ----------------------------------------------------------------
    def tournament_started(self, result) -> None:
        """Agents are loaded by now: note which ones did not (a resumed run reloads them)."""
        with self.connection:
            self.connection.executemany(
                "UPDATE agent SET status = ?, message = ? WHERE name = ?",
                [(e.status, e.message, e.name) for e in result.entrants])

    def round_finished(self, state, round_result, games) -> None:
        connection = self.connection
        first_id = connection.execute("SELECT coalesce(max(id), 0) + 1 FROM game").fetchone()[0]
        with connection:  # one transaction: the whole round or nothing
            connection.execute("INSERT INTO round (number, game_length, finished_at) "
                               "VALUES (?, ?, ?)",
                               (round_result.number, round_result.game_length, db.now()))
            dropped = set(round_result.dropped)
            connection.executemany(
                "INSERT INTO round_score (round, agent, score, dropped) VALUES (?, ?, ?, ?)",
                [(round_result.number, name, score, int(name in dropped))
                 for name, score in sorted(round_result.scores.items())])
            connection.executemany(
                "UPDATE agent SET dropped_in = ?, disqualified = ? WHERE name = ?",
                [(out, state.disqualified.get(name), name)
                 for name, out in state.dropped_in.items()])
            ids = range(first_id, first_id + len(games))
            connection.executemany(
                "INSERT INTO game VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_game_row(game_id, game) for game_id, game in zip(ids, games, strict=True)])
            connection.executemany("INSERT INTO fault VALUES (?, ?, ?, ?, ?, ?)",
                                   (row for game_id, game in zip(ids, games, strict=True)
                                    for row in _fault_rows(game_id, game)))
            connection.executemany("INSERT INTO move VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   (row for game_id, game in zip(ids, games, strict=True)
                                    for row in _move_rows(game_id, game)))
            if any(game.talk for game in games):   # language-model agents' exchanges
                connection.executemany(
                    f"INSERT INTO llm_call ({', '.join(CALL_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(CALL_COLUMNS))})",
                    (row for game_id, game in zip(ids, games, strict=True)
                     for row in call_rows(game_id, game)))
                connection.executemany(
                    "INSERT INTO llm_turn VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (row for game_id, game in zip(ids, games, strict=True)
                     for row in turn_rows(game_id, game)))

    # -- after the run ---------------------------------------------------------------------
    def finished(self, result) -> None:
        """The tournament is over: final statuses, ranks and scores."""
        with self.connection:
            self.connection.executemany(
                "UPDATE agent SET status = ?, message = ?, output = ? WHERE name = ?",
                [(e.status, e.message, e.output or None, e.name) for e in result.entrants])
            self.connection.executemany(
                "UPDATE agent SET rank = ?, score = ?, dropped_in = ? WHERE name = ?",
                [(s.rank, s.score, s.dropped_in, s.agent) for s in result.standings])

    def complete(self) -> None:
        """Nothing is left to do (tournament and replicates): `resume` has nothing to add."""
        with self.connection:
            self.connection.execute("UPDATE run SET finished_at = ?", (db.now(),))

    def replicates_finished(self, summary) -> None:
        with self.connection:
            self.connection.execute("DELETE FROM replicate")
            self.connection.executemany(
                "INSERT INTO replicate VALUES (?, ?, ?, ?, ?, ?)",
                [(run.number, run.seed, s.agent, s.rank, s.score, s.dropped_in)
                 for run in summary.runs for s in run.standings])


def _game_row(game_id, game):
    warnings = game.warnings
    return (game_id, game.round, game.a, game.b, game.length, game.seed,
            game.score[0], game.score[1], game.fault_count("a"), game.fault_count("b"),
            warnings.get("a"), warnings.get("b"))


def _fault_rows(game_id, game):
    for side, name in (("a", game.a), ("b", game.b)):
        for turn, fault in game.faults(side):
            yield (game_id, turn, side, name, fault.kind, fault.message)


def _move_rows(game_id, game):
    for number, turn in enumerate(zip(*columns(game), strict=False), 1):
        for index, moves in enumerate(zip(*turn, strict=False), 1):
            yield (game_id, number, index, *moves)
