"""The host line protocol has one owner, harness/core/protocol.py: its verb table.

The Python host and the monitor write and read every line through it, so they cannot drift
apart; these tests hold the rest to it:
- the Lisp hosts, which cannot import Python: lisp_bridge/sbcl_host.lisp sends exactly the
  table's host verbs and reads exactly the monitor's, lisp_bridge/repl_monitor.lisp the
  same for a REPL's channel (read from the files' own forms: `(reply ... "WORD" ...)` and
  `(string= command "WORD")`); a verb added or renamed on one side only fails here, which
  the mutation tests below check;
- the Python files that speak the protocol spell no verb as a literal of their own;
- the table's reader (`parse`) is a reader of untrusted input: it never raises, reads back
  every line `Verb.line` writes, and takes exactly the lines of the grammar the table
  states (compared with a regular expression built here from the same table), and the
  monitor's shortcut for the common reply agrees with it.
"""
from __future__ import annotations

import ast
import re
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness.core import protocol
from harness.core.protocol import (
    COUNT,
    INTEGER,
    KEYWORD,
    MONITOR,
    MOVE_STRING,
    TEXT,
    Verb,
)
from harness.core.verdicts import FaultKind
from harness.isolation.handles.process import ProcessHandle

from conftest import ROOT


class _SbclHost:
    """The SBCL host's source: its parts (lisp_bridge/sbcl.py, SOURCES), read as one."""

    @staticmethod
    def read_text() -> str:
        from lisp_bridge.sbcl import SOURCES

        return "\n".join(part.read_text() for part in SOURCES)


SBCL_HOST = _SbclHost()
REPL_MONITOR = ROOT / "lisp_bridge" / "repl_monitor.lisp"
# the Python files that speak the protocol: each takes its words from the table
SPEAKERS = ["harness/isolation/host.py", "harness/isolation/handles/process.py",
            "harness/isolation/handles/host_process.py",
            "harness/isolation/handles/repl.py", "harness/isolation/handles/replies.py",
            "harness/isolation/handles/inprocess.py", "harness/agents/runtime.py"]


# -- reading Lisp source (just enough of the reader for our two files) -----------------------
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>;[^\n]*)
  | (?P<block>\#\|.*?\|\#)
  | (?P<char>\#\\.[A-Za-z0-9_-]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<open>\#?\()
  | (?P<close>\))
  | (?P<prefix>\#'|['`]|,@|,)
  | (?P<atom>[^\s()";'`,]+)
""", re.VERBOSE | re.DOTALL)


class LispString(str):
    """A string literal of the source (an atom is a plain str)."""


def read_forms(text: str) -> list:
    """The file's top-level forms as nested lists: atoms (lower case) and LispStrings."""
    stack: list[list] = [[]]
    at = 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        assert match is not None, f"cannot read the Lisp at {text[at:at + 40]!r}"
        at = match.end()
        kind, token = match.lastgroup, match.group()
        if kind == "open":
            stack.append([])
        elif kind == "close":
            form = stack.pop()
            stack[-1].append(form)
        elif kind == "string":
            stack[-1].append(LispString(re.sub(r"\\(.)", r"\1", token[1:-1])))
        elif kind in ("atom", "char"):
            stack[-1].append(token.lower())
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


def every_list(form):
    if isinstance(form, list):
        yield form
        for part in form:
            yield from every_list(part)


PROTOCOL_WORD = re.compile(r"[A-Z]+")


def lisp_speaks(text: str) -> tuple[set[str], set[str], set[str]]:
    """(verbs it sends, keywords in its replies, verbs it reads) of a Lisp host's source:
    sent, the first string of each `(reply ...)` call; keywords, its later strings that are
    one upper-case word (WARN); read, the strings compared with `command`."""
    sent: set[str] = set()
    keywords: set[str] = set()
    read: set[str] = set()
    for form in every_list(read_forms(text)):
        if form and form[0] == "reply":
            words = [part for part in form[1:] if isinstance(part, LispString)]
            assert words and PROTOCOL_WORD.fullmatch(words[0]), \
                f"a reply whose verb is not a literal this test can read: {form}"
            sent.add(words[0])
            keywords |= {word for word in words[1:] if PROTOCOL_WORD.fullmatch(word)}
        elif form and form[0] in ("string=", "equal", "string-equal", "equalp") \
                and "command" in form:
            read |= {part for part in form if isinstance(part, LispString)}
    return sent, keywords, read


def sides(verbs: tuple[Verb, ...]) -> tuple[set[str], set[str], set[str]]:
    """(what the host side sends, the keywords of its replies, what it reads) per the table."""
    sent = {verb.word for verb in verbs if verb.sender != MONITOR}
    keywords = {argument.name for verb in verbs if verb.sender != MONITOR
                for argument in verb.arguments if argument.grammar == KEYWORD}
    read = {verb.word for verb in verbs if verb.sender == MONITOR}
    return sent, keywords, read


def sbcl_host_mismatch(text: str, verbs: tuple[Verb, ...] = protocol.HOST) -> list[str]:
    """How the SBCL host's source and the table disagree; [] when they do not."""
    return _mismatch(lisp_speaks(text), sides(verbs))


def repl_mismatch(text: str, verbs: tuple[Verb, ...] = protocol.REPL) -> list[str]:
    sent, keywords, read = sides(verbs)
    # END reaches the REPL too, and it has nothing to end: the one verb it does not read
    return _mismatch(lisp_speaks(text), (sent, keywords, read - {protocol.END.word}))


def _mismatch(lisp, table) -> list[str]:
    found = []
    for what, in_lisp, in_table in zip(("sends", "writes as a keyword", "reads"), lisp, table,
                                       strict=True):
        if in_lisp != in_table:
            found.append(f"the Lisp {what} {sorted(in_lisp)}, the table {sorted(in_table)}")
    return found


def test_the_sbcl_host_speaks_exactly_the_tables_host_verbs():
    assert sbcl_host_mismatch(SBCL_HOST.read_text()) == []


def test_the_repl_server_speaks_exactly_the_tables_repl_verbs():
    assert repl_mismatch(REPL_MONITOR.read_text()) == []


ONE_SIDED = [  # (what changes, the SBCL host's source changed so)
    ("a reply verb renamed in Lisp", ('(reply "ENDED")', '(reply "FINISHED")')),
    ("a reply verb added in Lisp", ('(reply "READY")', '(reply "READY") (reply "HELLO")')),
    ("a keyword renamed in Lisp", ('"MOVES" moves "WARN"', '"MOVES" moves "NOTE"')),
    ("a request renamed in Lisp", ('(string= command "SYNC")', '(string= command "CATCHUP")')),
    ("a request added in Lisp", ('(equal command "END")',
                                 '(equal command "END") (equal command "PING")')),
]


@pytest.mark.parametrize("change", ONE_SIDED, ids=[what for what, _ in ONE_SIDED])
def test_a_verb_changed_in_the_lisp_host_only_is_caught(change):
    _, (before, after) = change
    text = SBCL_HOST.read_text()
    assert text.count(before) == 1
    assert sbcl_host_mismatch(text.replace(before, after)) != []


def test_a_verb_added_or_renamed_in_the_table_only_is_caught():
    text = SBCL_HOST.read_text()
    added = Verb("PAUSE", protocol.GAME_CHANNEL, MONITOR, protocol.GAME_PROCESS)
    assert sbcl_host_mismatch(text, (*protocol.HOST, added)) != []
    renamed = tuple(Verb("GONE", verb.channel, verb.sender, verb.receiver, verb.arguments)
                    if verb is protocol.DIED else verb for verb in protocol.HOST)
    assert sbcl_host_mismatch(text, renamed) != []
    assert repl_mismatch(REPL_MONITOR.read_text(), (*protocol.REPL, added)) != []


def test_the_python_speakers_spell_no_verb_of_their_own():
    """Every verb word in these files comes from the table: no string or bytes literal
    (docstrings aside) starts with one."""
    words = {verb.word for verb in protocol.VERBS} | {protocol.WARN}
    found = []
    for path in SPEAKERS:
        tree = ast.parse((ROOT / path).read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) \
                    and id(node) not in docstrings:
                text = node.value.decode("latin-1") if isinstance(node.value, bytes) \
                    else node.value
                first = text.split()[:1]
                if first and first[0] in words:
                    found.append(f"{path}:{node.lineno}: {text!r}")
    assert found == []


# -- the reader: a reader of untrusted input ------------------------------------------------
# no deadline and no speed check: the machine may be shared; what is checked is the verdict
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
VALUES = {
    COUNT: st.integers(0, 2**64),
    INTEGER: st.integers(-10**6, 10**6),
    MOVE_STRING: st.text("CD", min_size=1, max_size=8),
    TEXT: st.text(max_size=30).map(lambda text: text.replace("\n", "")),
}


@st.composite
def lines_of_verbs(draw):
    verb = draw(st.sampled_from(protocol.VERBS))
    optional = draw(st.booleans())
    values = tuple(draw(VALUES[argument.grammar]) for argument in verb.arguments
                   if argument.grammar != KEYWORD and (optional or not argument.optional))
    return verb, values


@PROPERTY
@given(lines_of_verbs())
def test_every_line_written_is_read_back(verb_and_values):
    verb, values = verb_and_values
    line = verb.line(*values)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert protocol.parse(line[:-1], protocol.table((verb,))) == (verb, values)


def reference(verb: Verb) -> re.Pattern:
    """The verb's grammar as a regular expression, written from the same table."""
    pattern = {COUNT: "([0-9]+)", INTEGER: "(-?[0-9]+)", MOVE_STRING: "([CD]+)", TEXT: "(.*)"}
    required = "".join(" " + (re.escape(a.name) if a.grammar == KEYWORD else pattern[a.grammar])
                       for a in verb.arguments if not a.optional)
    optional = "".join(" " + (re.escape(a.name) if a.grammar == KEYWORD else pattern[a.grammar])
                       for a in verb.arguments if a.optional)
    return re.compile(re.escape(verb.word) + required + (f"(?:{optional})?" if optional else ""))


READERS = [protocol.ZYGOTE_READS, protocol.GAME_PROCESS_READS,
           protocol.MONITOR_READS_CONTROL, protocol.MONITOR_READS_GAME]
PIECES = st.sampled_from(sorted({verb.word for verb in protocol.VERBS}) + [
    protocol.WARN, " ", "  ", "C", "D", "CD", "c", "0", "12", "-", "-3", "007", "x", "é",
    "\u00b2", "\r", "\t", ""])


@PROPERTY
@given(st.sampled_from(range(len(READERS))), st.lists(PIECES, max_size=12).map("".join))
def test_the_reader_takes_exactly_the_grammars_lines(which, line):
    verbs = READERS[which]
    verb, values = protocol.parse(line, verbs)
    expected = [(candidate, match) for candidate in verbs.values()
                if (match := reference(candidate).fullmatch(line))]
    if not expected:
        assert (verb, values) == (None, ())
        return
    [(candidate, match)] = expected
    assert verb is candidate
    typed = [(int(value) if argument.grammar in (COUNT, INTEGER) else value)
             for argument, value in zip(
                 [a for a in candidate.arguments if a.grammar != KEYWORD], match.groups(),
                 strict=True) if value is not None]
    assert values == tuple(typed)


@PROPERTY
@given(st.text(max_size=60))
def test_the_reader_never_raises(line):
    for verbs in READERS:
        protocol.parse(line, verbs)


def reply_to(line: str, per_turn: int = 3):
    """What the monitor makes of a reply line (ProcessHandle._parse, on a game started)."""
    handle = SimpleNamespace(start=SimpleNamespace(moves_per_turn=per_turn),
                             shown=lambda message: message)   # a file's: as written
    return ProcessHandle._parse(handle, line)


@pytest.mark.parametrize("line, moves, kind, text", [
    ("MOVES CCD", "CCD", None, None),
    ("MOVES CCD WARN answer (c c d) spelled non-canonically",
     "CCD", None, "answer (c c d) spelled non-canonically"),
    ("MOVES CCD WARN ", "CCD", None, ""),
    ("MOVES CC", None, FaultKind.INVALID, "unreadable reply 'MOVES CC'"),
    ("MOVES CCD WARN", None, FaultKind.INVALID, "unreadable reply 'MOVES CCD WARN'"),
    ("MOVES ccd", None, FaultKind.INVALID, "unreadable reply 'MOVES ccd'"),
    ("INVALID returned 7, not a list", None, FaultKind.INVALID, "returned 7, not a list"),
    ("ERROR ZeroDivisionError:   division by zero",
     None, FaultKind.EXCEPTION, "ZeroDivisionError: division by zero"),
    ("TIMEOUT no answer within 1 s", None, FaultKind.TIMEOUT, "no answer within 1 s"),
    ("ERROR", None, FaultKind.INVALID, "unreadable reply 'ERROR'"),
    ("READY", None, FaultKind.INVALID, "unreadable reply 'READY'"),
])
def test_the_monitor_reads_a_reply(line, moves, kind, text):
    reply = reply_to(line)
    assert reply.moves == moves
    if kind is None:
        assert reply.fault is None and reply.warning == text
    else:
        assert (reply.fault.kind, reply.fault.message) == (kind, text)


@PROPERTY
@given(st.integers(1, 4), st.lists(PIECES, max_size=8).map("".join))
def test_the_monitors_shortcut_agrees_with_the_table(per_turn, rest):
    """The common reply is read without the table's reader: the same verdict as with it."""
    line = protocol.MOVES.word + " " + rest
    reply = reply_to(line, per_turn)
    verb, values = protocol.parse(line, protocol.MONITOR_READS_GAME)
    if verb is protocol.MOVES and len(values[0]) == per_turn:
        assert (reply.moves, reply.fault) == (values[0], None)
        assert reply.warning == (values[1] if len(values) == 2 else None)
    else:
        assert reply.moves is None and reply.fault.kind == FaultKind.INVALID


def test_design_writes_every_verb_as_the_table_does():
    """docs/DESIGN.md's summary of the protocol spells each verb's grammar as `repr` does."""
    design = (ROOT / "docs" / "DESIGN.md").read_text()
    assert [repr(verb) for verb in protocol.VERBS if f"`{verb!r}`" not in design] == []


@PROPERTY
@given(st.sampled_from([protocol.MOVES, protocol.INVALID, protocol.ERROR]),
       VALUES[TEXT], st.one_of(st.none(), VALUES[TEXT]))
def test_a_game_process_writes_its_reply_as_the_table_does(kind, text, warning):
    """harness/isolation/host.py writes a call's reply itself (a game's child touches fewer
    pages so): byte for byte the table's line."""
    from harness.isolation.host import reply_line

    values = (text, warning) if warning and kind is protocol.MOVES else (text,)
    assert reply_line(kind, text, warning if kind is protocol.MOVES else None) == \
        kind.line(*values).encode("utf-8", "replace")


def test_the_repl_monitor_loads_every_part_of_the_sbcl_host_in_order():
    """repl_monitor.lisp reuses the host's own reading of answers: it loads the host's
    parts in the order lisp_bridge/sbcl.py compiles them."""
    from lisp_bridge.sbcl import SOURCES

    text = REPL_MONITOR.read_text()
    named = re.findall(r'"(sbcl_host[a-z_]*\.lisp)"', text)
    assert named == [part.name for part in SOURCES]
