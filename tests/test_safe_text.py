"""Untrusted text never reaches a terminal or a spreadsheet raw.

The rule (harness/core/safe_text.py), as properties; then the real console command on a real
pseudo-terminal with agents whose load errors, fault messages and output are terminal
escapes (tests/agents/untrusted/terminal/); then every CSV pdharness writes, with agents
named like formulas (tests/agents/untrusted/spreadsheet/), checked by the rule and, where
LibreOffice is installed, by LibreOffice itself."""
import csv
import io
import os
import re
import select
import shutil
import sqlite3
import subprocess
import sys
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness.core.safe_text import block, csv_cell, line

from conftest import AGENTS, ROOT, _need, run_cli
from test_records_tampered import run_in_process

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

TERMINAL = AGENTS / "untrusted" / "terminal"
SPREADSHEET = AGENTS / "untrusted" / "spreadsheet"
BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def obeyed(char: str) -> bool:
    """A character a terminal acts on, or that reorders or breaks what is shown."""
    code = ord(char)
    return (unicodedata.category(char) in ("Cc", "Cs") or code in BIDI
            or code in (0x2028, 0x2029))


# -- the rule ---------------------------------------------------------------------------------
@given(st.text())
@settings(max_examples=500, derandomize=True)
def test_a_line_holds_nothing_a_terminal_obeys(text):
    shown = line(text)
    assert not any(obeyed(c) for c in shown)
    shown.encode("utf-8")  # lone surrogates too are escaped, so it can always be printed
    if not any(obeyed(c) for c in text):
        assert shown == text  # everything else, accents and all, as it was


@given(st.text())
@settings(max_examples=500, derandomize=True)
def test_a_block_keeps_its_lines_and_tabs_only(text):
    shown = block(text)
    assert not any(obeyed(c) for c in shown if c not in "\n\t")
    assert shown.count("\n") == text.count("\n") and shown.count("\t") == text.count("\t")


def test_escapes_are_visible_and_named_as_python_writes_them():
    assert line("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert line("\x9b\x7f\x00") == "\\x9b\\x7f\\x00"
    assert line("x\ny\tz\r") == "x\\ny\\tz\\r"
    assert line("\u202eevil\u2066") == "\\u202eevil\\u2066"
    assert line("bad \udcff byte") == "bad \\udcff byte"
    assert block("one\n\ttwo\x1b]0;title\x07") == "one\n\ttwo\\x1b]0;title\\x07"


@given(st.one_of(st.text(), st.integers(), st.floats(allow_nan=False), st.none()))
@settings(max_examples=500, derandomize=True)
def test_no_csv_cell_starts_a_formula(value):
    cell = csv_cell(value)
    if isinstance(cell, str):
        assert not any(obeyed(c) for c in cell)
        assert not cell.lstrip().startswith(LIVE) or re.fullmatch(
            r"\s*[+-][0-9]+(\.[0-9]+)?", cell)
    else:
        assert cell == value


# What starts a formula, decided: the ASCII four and tab/CR, also after leading
# blanks (Google Sheets, and LibreOffice's "trim spaces" import, drop them first), and the
# full-width forms (spreadsheets in East Asian locales take them for the ASCII ones).
LIVE = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


@pytest.mark.parametrize("cell", [" =1+1", "   +cmd", "\u00a0-2+3", "\u3000@SUM(1)",
                                  "\uff1d1+1", "\uff0bA1", "\uff0d1+1", "\uff20SUM(A1)",
                                  "  \uff1dHYPERLINK(\"http:evil.example\")"])
def test_formulas_after_blanks_and_full_width_ones_are_neutralized(cell):
    assert csv_cell(cell) == "'" + line(cell)


def test_formula_cells_get_a_quote_and_numbers_stay_numbers():
    assert csv_cell('=HYPERLINK("http:evil.example","Grades")') == \
        '\'=HYPERLINK("http:evil.example","Grades")'
    assert [csv_cell(v) for v in ("+1+1", "@SUM(1)", "-", "\tx", "-1.5", "3", 7, None)] == \
        ["'+1+1", "'@SUM(1)", "'-", "\\tx", "-1.5", "3", 7, ""]


def test_every_csv_is_written_in_one_place():
    """A new CSV writer that bypasses csv_table.write_csv would bypass the neutralizing."""
    writers = [str(path.relative_to(ROOT)) for path in (ROOT / "harness").rglob("*.py")
               if re.search(r"csv\.(writer|DictWriter)\(", path.read_text(encoding="utf-8"))]
    assert writers == ["harness/present/csv_table.py"]  # write_csv


# -- a real terminal --------------------------------------------------------------------------
def on_terminal(*args, timeout=240, colour=False) -> bytes:
    """Run the real console command with stdin, stdout and stderr on a new pseudo-terminal
    (so it sees a terminal: the progress bar is drawn too); every byte the terminal got.
    Without `colour`, NO_COLOR keeps pdharness's own colour codes out, so any escape
    sequence that arrives came from an agent."""
    main, secondary = os.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    if not colour:
        env["NO_COLOR"] = "1"
    process = subprocess.Popen([sys.executable, "-m", "harness", *map(str, args)],
                               stdin=secondary, stdout=secondary, stderr=secondary, env=env,
                               close_fds=True)
    os.close(secondary)
    seen = bytearray()
    try:
        while True:
            ready, _, _ = select.select([main], [], [], timeout)
            if not ready:
                raise AssertionError(f"no output for {timeout} s from {args}")
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    finally:
        process.wait(timeout=timeout)
        os.close(main)
    return bytes(seen)


def assert_inert(received: bytes) -> None:
    """Nothing an agent wrote is obeyed: no ESC (CSI, OSC), no BEL ending an OSC, no C1
    CSI, no bidi override, no carriage return but the progress bar's own."""
    text = received.decode("utf-8")
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "\u202e" not in text and "\x7f" not in text
    assert not [c for c in text if obeyed(c) and c not in "\r\n\t"]


@pytest.fixture(scope="module")
def hostile_record(tmp_path_factory):
    record = tmp_path_factory.mktemp("terminal") / "run.sqlite"
    received = on_terminal("tournament", TERMINAL, "titfortat", "--seed", "5",
                           "--isolation", "process", "--db", record)
    return record, received


def test_tournament_table_and_progress_show_agent_text_escaped(hostile_record):
    record, received = hostile_record
    assert_inert(received)
    text = received.decode()
    problems = text[text.index("Agents with problems:"):]
    assert "TerminalForger: disqualified: does not load:" in problems
    assert "\\x1b[1A\\x1b[2K\\x1b[G" in problems and "\\x1b]52;c;" in problems
    assert "\\x1b]0;grades are final\\x07" in problems and "\\u202e" in problems
    with sqlite3.connect(record) as db:  # the record keeps the raw bytes
        message, = db.execute("SELECT message FROM agent WHERE name = 'TerminalForger'").fetchone()
        output, = db.execute("SELECT output FROM agent WHERE name = 'TerminalWriter'").fetchone()
    assert "\x1b]52;c;" in message and "\u202e" in message
    assert "\x1b]0;owned\x07stdout" in output


@pytest.mark.parametrize("options", [(), ("--agent", "TerminalWriter"),
                                     ("--agent", "TerminalForger"), ("--game", "1"),
                                     ("--game", "2", "--agent", "TerminalWriter")])
def test_show_escapes_everything_from_the_record(hostile_record, options):
    record, _ = hostile_record
    received = on_terminal("show", record, *options)
    assert_inert(received)
    if options[:2] == ("--agent", "TerminalWriter"):
        text = received.decode()
        printed = text[text.index("What its process printed:"):]
        assert "\\x1b[2J\\x1b[H\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;owned\\x07stdout" in printed
        assert "exception: ValueError: \\x1b[2J" in text


def test_play_escapes_fault_messages_and_load_errors():
    received = on_terminal("play", TERMINAL / "TerminalWriter.py", "titfortat", "--turns", "6",
                           "--seed", "1", "--isolation", "process")
    assert_inert(received)
    assert b"TerminalWriter exception: ValueError: \\x1b[2J" in received
    received = on_terminal("play", TERMINAL / "TerminalForger.py", "titfortat",
                           "--isolation", "process")
    assert_inert(received)
    assert b"pdharness: error: TerminalForger does not load:" in received


def test_validate_escapes_messages_in_table_and_json():
    assert_inert(on_terminal("validate", TERMINAL, "--isolation", "process"))
    received = on_terminal("validate", TERMINAL, "--isolation", "process", "--format", "json")
    assert_inert(received)
    assert b'\\u001b]52;c;' in received  # JSON's own escape, so the data is unchanged


def test_with_colour_only_our_own_colour_codes_arrive():
    received = on_terminal("validate", TERMINAL, "--isolation", "process", colour=True)
    assert b"\x1b[" in received  # FAIL in red: pdharness's own
    assert_inert(re.sub(rb"\x1b\[[0-9;]*m", b"", received))


def test_json_output_escapes_every_control_character(hostile_record):
    record, _ = hostile_record
    for options in ((), ("--agent", "TerminalWriter")):
        received = on_terminal("show", record, "--format", "json", *options)
        assert_inert(received)


# -- spreadsheets -----------------------------------------------------------------------------
FORMULA_NAMES = ('=HYPERLINK("http:evil.example","Grades")', "+1+1", "@SUM(1+1)", "-")


@pytest.fixture(scope="module")
def formula_run(tmp_path_factory):
    _need("sbcl", "apt-get install sbcl")  # the sbcl fixture, for a module-scoped run
    folder = tmp_path_factory.mktemp("spreadsheet")
    status, out, err = run_cli("tournament", SPREADSHEET, "titfortat", "--seed", "1",
                               "--isolation", "process", "--format", "csv",
                               "--db", folder / "run.sqlite", "--grades", folder / "grades.csv")
    assert status == 0, err
    return folder, out


def every_csv(folder, printed):
    status, shown, err = run_cli("show", folder / "run.sqlite", "--format", "csv",
                                 "--grades", folder / "again.csv")
    assert status == 0, err
    return {"--format csv": printed, "--grades": (folder / "grades.csv").read_text(),
            "show --format csv": shown, "show --grades": (folder / "again.csv").read_text()}


def test_every_csv_holds_formula_names_as_text(formula_run):
    folder, printed = formula_run
    for where, text in every_csv(folder, printed).items():
        rows = list(csv.DictReader(io.StringIO(text)))
        assert {row["agent"] for row in rows} == {"'" + name for name in FORMULA_NAMES} | {
            "titfortat"}, where
        assert {row["status"] for row in rows if row["agent"] == "'-"} == {"disqualified"}
        for row in rows:
            for column, cell in row.items():
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (where, column)
        sources = [row["source"] for row in rows if row["agent"].startswith("'=")]
        assert sources == [str(SPREADSHEET / (FORMULA_NAMES[0] + ".lisp"))], where


def test_libreoffice_evaluates_no_cell(formula_run, tmp_path, libreoffice):
    """The proof by the spreadsheet itself: LibreOffice opens the grades CSV and saves it as
    flat XML; no cell of it holds a formula. (The same conversion of the unneutralized
    cells shows formulas, so the check can fail.)"""
    office = libreoffice
    folder, printed = formula_run
    raw = tmp_path / "raw.csv"
    raw.write_text(printed.replace("'=", "=").replace("'+", "+").replace("'@", "@")
                   .replace("'-", "-"))
    safe = tmp_path / "safe.csv"
    safe.write_text(printed)
    for name in ("raw.csv", "safe.csv"):
        subprocess.run([office, "--headless", f"-env:UserInstallation={(tmp_path / 'lo').as_uri()}",
                        "--convert-to", "fods", "--outdir", str(tmp_path), str(tmp_path / name)],
                       capture_output=True, timeout=180, check=True)
    raw_xml = (tmp_path / "raw.fods").read_text()
    safe_xml = (tmp_path / "safe.fods").read_text()
    assert "table:formula=" in raw_xml  # LibreOffice does run such cells...
    assert "table:formula=" not in safe_xml  # ...and runs none of ours
    assert "HYPERLINK" in safe_xml


def test_error_lines_quote_names_escaped(hostile_record, tmp_path):
    """Error lines quote what the user or a file gave: a record path, an agent name."""
    record, _ = hostile_record
    hostile = "\x1b]0;owned\x07\x1b[2J"
    for argv in (("show", tmp_path / f"{hostile}.sqlite"),
                 ("show", record, "--agent", hostile),
                 ("play", f"{hostile}.py", "titfortat")):
        received = on_terminal(*argv)
        assert_inert(received)
        assert received.startswith(b"pdharness: error: ") and received.count(b"\n") == 1


# -- any text, in every printer that reads a record ---------------------------------------
ONE_LINE_FIELDS = ("UPDATE agent SET message = :text WHERE name = 'TerminalForger'",
                   "UPDATE agent SET source = :text, language = :text "
                   "WHERE name = 'TerminalWriter'",
                   "UPDATE fault SET message = :text, kind = 'exception'",
                   "UPDATE game SET warning_a = :text, warning_b = :text")
RENAMES = [f"UPDATE {table} SET {column} = :text WHERE {column} = 'TerminalWriter'"
           for table, column in (("agent", "name"), ("game", "a"), ("game", "b"),
                                 ("fault", "agent"), ("round_score", "agent"))]


def shown_from(record, tmp_path, text, statements):
    """What show prints (standings, --agent, --game) after the record's fields are set to
    `text`: (stdout of each, in order)."""
    copy = tmp_path / "edited.sqlite"
    shutil.copyfile(record, copy)
    with sqlite3.connect(copy) as connection:
        for statement in statements:
            connection.execute(statement, {"text": text})
    name = text if statements is RENAMES else "TerminalWriter"
    outputs = []
    for argv in (("show", copy), ("show", copy, "--agent", name), ("show", copy, "--game", "1")):
        status, out, err = run_in_process(*argv)
        assert status == 0, err
        outputs.append(out)
    return outputs


@given(text=st.text(min_size=1, max_size=40).filter(lambda t: t.strip() == t and t.strip()),
       renamed=st.booleans())
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_record_text_adds_a_line_or_a_control_character(hostile_record, tmp_path, text,
                                                          renamed):
    """Whatever a name, a path or a message says, show prints as many lines as for a plain
    word there, and nothing a terminal obeys (but the newlines of its own lines)."""
    record, _ = hostile_record
    statements = RENAMES if renamed else ONE_LINE_FIELDS
    hostile = shown_from(record, tmp_path, text, statements)
    plain = shown_from(record, tmp_path, "Plain", statements)
    for seen, expected in zip(hostile, plain, strict=True):
        assert not [c for c in seen if obeyed(c) and c != "\n"]
        body = seen[:seen.find("What its process printed:")]  # the agent's own lines
        assert body.count("\n") == expected[:expected.find("What its process printed:")]\
            .count("\n")
