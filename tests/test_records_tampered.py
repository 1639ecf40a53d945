"""A record is a file anyone can edit. What show and resume read from it is checked against
what pdharness writes (types, words, names that exist): anything else is one line naming the
table and column, exit 2, whatever the edit - never a traceback, never markup in a report."""
import contextlib
import io
import shutil
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

MARKUP = '<script>document.title="owned"</script>'


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    """A real record: faults, a load error, replicates."""
    path = tmp_path_factory.mktemp("tampered") / "run.sqlite"
    status, _, err = run_cli(
        "tournament", AGENTS / "records" / "Stumbler.py", AGENTS / "hostile" / "DiesOnLoad.py",
        "titfortat", "defect", "--seed", "4", "--isolation", "process", "--replicates", "2",
        "--length", "5", "8", "--db", path)
    assert status == 0, err
    return path


def tampered(record, tmp_path, *statements):
    """A copy of the record edited as a person would, with SQLite (foreign keys off)."""
    copy = tmp_path / "edited.sqlite"
    shutil.copyfile(record, copy)
    connection = sqlite3.connect(copy)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()
    return copy


COMMANDS = [("show",), ("show", "--agent", "titfortat"), ("show", "--game", "1"),
            ("show", "--format", "csv"), ("show", "--format", "json"), ("resume",)]


@pytest.mark.parametrize("edit, named", [
    (f"UPDATE round SET game_length = '{MARKUP}' WHERE number = 1", "round.game_length"),
    ("UPDATE game SET score_a = 3.5 WHERE id = 2", "game.score_a"),
    ("UPDATE move SET played_b = 'X' WHERE game = 1 AND turn = 1", "move.played_b"),
    ("UPDATE agent SET status = 'winner' WHERE name = 'defect'", "agent.status"),
    ("UPDATE run SET seed = '4; DROP TABLE run'", "run.seed"),
    ("UPDATE run SET flip_start = 'high'", "run.flip_start"),
    ("UPDATE fault SET agent = 'Nobody'", "fault.agent"),
    ("UPDATE replicate SET rank = X'00ff' WHERE replicate = 1", "replicate.rank"),
    ("UPDATE replicate SET rank = -4 WHERE replicate = 1", "replicate.rank"),   # no place
    ("ALTER TABLE agent DROP COLUMN output", "agent has no column output"),
    ("UPDATE run SET isolation = 'trusted'", "run.isolation"),
    ("UPDATE run SET flip_start = 5.0", "flip chance"),
])
def test_an_edited_record_is_one_line_naming_what_is_wrong(record, tmp_path, edit, named):
    copy = tampered(record, tmp_path, edit)
    for command in COMMANDS:  # the real console command once, then its entry point
        status, out, err = run_cli(command[0], copy, *command[1:], "--report",
                                   tmp_path / "page.html") if command == ("show",) else \
            run_in_process(command[0], copy, *command[1:])
        assert status == 2, (command, err)
        assert err.count("\n") == 1 and "not a record pdharness wrote" in err, (command, err)
        assert named in err, (command, err)
        assert out == ""
    assert not (tmp_path / "page.html").exists()


def test_the_untouched_record_reads(record, tmp_path):
    status, _, err = run_cli("show", record, "--report", tmp_path / "page.html")
    assert status == 0, err


def _columns(record):
    with contextlib.closing(sqlite3.connect(record)) as connection:
        tables = [name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return [(table, row[1]) for table in tables
                for row in connection.execute(f"PRAGMA table_info({table})")]


VALUES = st.one_of(st.integers(min_value=-2 ** 63, max_value=2 ** 63 - 1),
                   st.floats(allow_nan=False), st.text(max_size=30), st.binary(max_size=8),
                   st.sampled_from([MARKUP, "C", "D", "ok", "", "a", "titfortat", "1e999"]))


def run_in_process(*argv):
    """The command line's own entry point, in this process: (status, stdout, stderr)."""
    from harness.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(map(str, argv)))
            status = 0
        except SystemExit as stop:
            status = stop.code
    return status, out.getvalue(), err.getvalue()


@given(data=st.data())
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_edit_reads_or_is_refused_in_one_line(record, tmp_path, data):
    table, column = data.draw(st.sampled_from(_columns(record)), label="column")
    value = data.draw(VALUES, label="value")
    copy = tmp_path / "edited.sqlite"
    shutil.copyfile(record, copy)
    with contextlib.closing(sqlite3.connect(copy)) as connection:
        where = ("game = 1 AND turn = 1 AND idx = 1" if table == "move"
                 else f'rowid IN (SELECT rowid FROM "{table}" LIMIT 1)')
        try:
            connection.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE {where}', (value,))
            connection.commit()
        except sqlite3.Error:  # a NOT NULL, CHECK or key SQLite enforces itself
            return
    page = tmp_path / "page.html"
    page.unlink(missing_ok=True)
    for argv in (("show", copy, "--report", page, "--format", "csv"),
                 ("show", copy, "--agent", "defect"), ("show", copy, "--game", "1")):
        status, _, err = run_in_process(*argv)
        assert status in (0, 2), (table, column, value, err)
        assert status == 0 or err.count("\n") == 1, err
    if page.exists():
        assert MARKUP not in page.read_text(encoding="utf-8")


def test_an_edited_experiment_record_is_one_line_too(tmp_path):
    path = tmp_path / "experiment.sqlite"
    status, _, err = run_cli("experiment", AGENTS / "experiments" / "minimal.json",
                             "--isolation", "none", "--seed", "3", "--db", path,
                             "--timeout", "30")   # the file's own
    assert status == 0, err
    copy = tampered(path, tmp_path, f"UPDATE placing SET rank = '{MARKUP}' WHERE rowid = 1",
                    "UPDATE experiment SET finished_at = NULL")
    status, out, err = run_cli("resume", copy, "--timeout", "30")
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "not a record pdharness wrote: placing.rank holds '<script>" in err
