"""A ladder's pass with what it writes (the record, the site, the instructor's CSV), and
`--every MINUTES`: passes until stopped. SIGTERM or Ctrl-C stops the loop cleanly (the
command line's handler raises KeyboardInterrupt: harness/core/interrupts.py): between
passes at once; during one, the games finished so far are kept and the next pass plays
the rest."""
from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError
from harness.core.output_paths import make_parent
from harness.present.ladder_site import pseudonym_csv, write_atomically, write_site
from harness.store.settings_columns import settings_from

from .board import Board, board
from .passes import LadderOptions, PassResult, open_record, run_pass


@dataclass(frozen=True)
class Outputs:
    site: Path | None = None
    names: str = "pseudonyms"          # or "real"
    pseudonyms: Path | None = None     # the instructor's CSV


def one_pass(options: LadderOptions, outputs: Outputs, say) -> tuple[PassResult, Board]:
    with pass_lock(options.db):
        record = open_record(options)
        try:
            result = run_pass(record, options, say)
            found = board(record, result.number)
            write_outputs(record, found, outputs)
            return result, found
        finally:
            record.close()


@contextmanager
def pass_lock(db: Path):
    """One pass of a ladder at a time (cron may start the next before the last ends): an
    exclusive lock on FILE.sqlite.lock, held for the pass; another pass is refused in one
    line. The kernel drops the lock with its process, so a killed pass leaves none."""
    lock = db.with_name(db.name + ".lock")
    make_parent(lock, str(lock))
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise HarnessError(f"{db}: another pass of this ladder is running; this one "
                               "is not started") from None
        yield
    finally:
        os.close(fd)


def write_outputs(record, found: Board, outputs: Outputs) -> None:
    if outputs.pseudonyms is not None:
        write_atomically(outputs.pseudonyms, pseudonym_csv(found))
    if outputs.site is not None:
        settings = _game_reading(record)
        write_site(outputs.site, found, outputs.names,
                   lambda game_id: _game(record, found, game_id, settings))


def _game_reading(record):
    """The moves per turn and payoffs the record's games were played with."""
    rules = json.loads(record.connection.execute("SELECT rules FROM ladder").fetchone()[0])
    return settings_from(rules).game


def _game(record, found: Board, game_id: int, game_params):
    row = record.connection.execute("SELECT version_a, version_b FROM game WHERE id = ?",
                                    (game_id,)).fetchone()
    if row is None or row[0] not in found.names or row[1] not in found.names:
        return None
    return record.game(game_id, found.names[row[0]], found.names[row[1]],
                       game_params.moves_per_turn, game_params.payoffs)


def every(options: LadderOptions, outputs: Outputs, minutes: float, say, report) -> None:
    """Pass, wait MINUTES from the pass's start, pass again, until a signal stops it
    (KeyboardInterrupt reaches the caller only from inside a pass)."""
    while True:
        started = time.monotonic()
        report(*one_pass(options, outputs, say))
        try:
            time.sleep(max(0.0, started + minutes * 60 - time.monotonic()))
        except KeyboardInterrupt:
            say("stopped between passes")
            return
