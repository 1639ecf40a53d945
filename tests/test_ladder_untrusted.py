"""What a ladder reads that anyone may have written - the submissions folder (names and
bytes) and its own record - never raises: every submission gets a status and one line."""
import shutil
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from harness.run.ladder import submissions
from harness.store.ladder_record import SCHEMA, LadderRecord

STATUSES = {submissions.OK, submissions.UNREADABLE, submissions.COLLISION}
names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"),
                min_size=1, max_size=40).filter(lambda n: n not in (".", "..")
                                               and len(n.encode()) < 200)
suffixes = st.sampled_from([".py", ".hy", ".lisp", ".zip", ".txt", ""])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(names, suffixes, st.binary(max_size=300)), max_size=6))
def test_any_folder_reads_into_statuses(files):
    folder = Path(tempfile.mkdtemp(prefix="ladder-fuzz-"))
    snapshots = submissions.Snapshots()
    try:
        for stem, suffix, data in files:
            try:
                (folder / (stem + suffix)).write_bytes(data)
            except OSError:
                pass
        found = submissions.read_all(submissions.listed(folder), snapshots)
        for entry in found:
            assert entry.status in STATUSES
            assert "\n" not in entry.message and "\x1b" not in entry.message
            assert (entry.digest is None) == (entry.status == submissions.UNREADABLE)
    finally:
        snapshots.close()
        shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=30), st.text(max_size=30), st.one_of(st.text(max_size=60),
                                                             st.integers(-2**63, 2**63 - 1)))
def test_an_edited_game_row_reads_as_no_game_not_a_crash(moves, played, faults):
    connection = sqlite3.connect(":memory:")
    connection.executescript(SCHEMA)
    connection.execute("INSERT INTO game VALUES (1, 1, 2, 1, 5, 2, 3, 4, ?, ?, ?, ?, ?, 1)",
                       (moves, played, moves, played, faults))
    record = LadderRecord(connection, "edited.sqlite")
    from harness.core.rules import Payoffs

    game = record.game(1, "A", "B", 3, Payoffs())
    if game is not None:
        assert set("".join(game.played_a)) <= {"C", "D"}


# NOT NULL columns: anything else SQLite keeps (not NaN, which SQLite stores as NULL: an
# edited record cannot hold one, and the test's own INSERT would fail)
ANY_VALUE = st.one_of(st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False),
                      st.text(max_size=20), st.binary(max_size=8))


@settings(max_examples=80, deadline=None)
@given(ANY_VALUE, st.tuples(ANY_VALUE, ANY_VALUE, ANY_VALUE, ANY_VALUE))
def test_an_edited_seed_or_number_is_a_line_or_no_game(seed, numbers):
    """Whatever an edited record holds where a number goes (a REAL 9e999, a text, a blob):
    the ladder's seed is a number or one HarnessError, a game is a game or None."""
    from harness.core.errors import HarnessError
    from harness.core.rules import Payoffs

    connection = sqlite3.connect(":memory:")
    connection.executescript(SCHEMA)
    connection.execute("INSERT INTO ladder VALUES (1, 'pdharness-ladder', 1, 'x', '/f', ?, "
                       "'{}', 2, 'now')", (seed,))
    number, game_seed, length, score = numbers
    connection.execute("INSERT INTO game VALUES (1, 1, 2, ?, ?, ?, ?, 0, 'CCC', 'CCC', "
                       "'CCC', 'CCC', '[]', 1)", (number, game_seed, length, score))
    record = LadderRecord(connection, "edited.sqlite")
    try:
        assert isinstance(record.seed, int)
    except HarnessError as error:
        assert "\n" not in str(error)
    game = record.game(1, "A", "B", 3, Payoffs())
    assert game is None or game.seed == game_seed


def test_a_file_edited_while_it_is_read_is_unreadable_this_pass(tmp_path, monkeypatch):
    from harness.agents import agent_files

    path = tmp_path / "AdamsBrown.py"
    path.write_text("def AdamsBrown(hist, score):\n    return 'CCC'\n", encoding="utf-8")
    read = agent_files.read_agent_file

    def edited_meanwhile(target):
        content = read(target)
        if str(target) == str(path):
            path.write_text("def AdamsBrown(hist, score):\n    return 'DDD'\n")
        return content

    monkeypatch.setattr(agent_files, "read_agent_file", edited_meanwhile)
    snapshots = submissions.Snapshots()
    try:
        [found] = submissions.read_all([path], snapshots)
        assert found.status == submissions.UNREADABLE and found.digest is None
        assert "changed while it was read" in found.message
        monkeypatch.undo()
        [again] = submissions.read_all([path], snapshots)   # the next pass reads it
        assert again.status == submissions.OK and again.digest is not None
    finally:
        snapshots.close()
