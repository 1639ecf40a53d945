"""The fault policy (harness/core/fault_policy.py), pinned as tables: what happened on a call
-> what is recorded and what it does to the game; the game's timeouts-in-a-row rule;
disqualification and the final status; validate's and the autograder's verdicts. And the
rule that keeps it owned: no module of harness/ but the owner compares a fault kind or a
status to decide a consequence, and none spells one of their words to compare."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.core.fault_policy import (
    CONSEQUENCES,
    FAULT_POLICY,
    Event,
    FaultCode,
    GradeCheck,
    Process,
)
from harness.core.verdicts import FAULT_KINDS, STATUSES, Status

KEPT, REPLACED, ENDED = Process.KEPT, Process.REPLACED, Process.ENDED
INVALID, EXCEPTION, TIMEOUT, CRASH = FAULT_KINDS

# what happened             recorded as  the process  out for the rest of the game
TABLE = {
    Event.BAD_ANSWER:       (INVALID,    KEPT,        False),
    Event.RAISED:           (EXCEPTION,  KEPT,        False),
    Event.STOPPED:          (TIMEOUT,    KEPT,        False),
    Event.LATE:             (TIMEOUT,    KEPT,        False),
    Event.NO_ANSWER:        (TIMEOUT,    REPLACED,    False),
    Event.DIED:             (CRASH,      ENDED,       True),
    Event.BROKE_PROTOCOL:   (INVALID,    ENDED,       True),
    Event.NOT_RESTARTED:    (CRASH,      ENDED,       True),
    Event.NOT_ASKED:        (TIMEOUT,    KEPT,        True),
}


def test_the_table_covers_every_event():
    assert set(TABLE) == set(Event) == set(CONSEQUENCES)


@pytest.mark.parametrize("event", list(Event))
def test_each_event_has_its_consequence(event):
    kind, process, out = TABLE[event]
    consequence = FAULT_POLICY.consequence(event)
    assert (consequence.kind, consequence.process, consequence.out_for_game) == \
        (kind, process, out)
    assert FAULT_POLICY.kind(event) is kind


def test_every_fault_kind_is_recorded_for_some_event():
    assert {kind for kind, _p, _o in TABLE.values()} == set(FAULT_KINDS)


# -- a game: 3 timeouts in a row and the agent is not asked again that game ------------------
@pytest.mark.parametrize("before, fault, after", [
    (0, TIMEOUT, 1), (1, TIMEOUT, 2), (2, TIMEOUT, 3),
    (2, None, 0), (2, INVALID, 0), (2, EXCEPTION, 0), (2, CRASH, 0),
])
def test_timeouts_in_a_row(before, fault, after):
    assert FAULT_POLICY.timeouts_after(before, fault) == after


def test_three_timeouts_in_a_row_and_the_game_stops_asking():
    assert [FAULT_POLICY.asks(n) for n in range(5)] == [True, True, True, False, False]
    # the message every turn played without asking records (the golden JSON holds it)
    assert FAULT_POLICY.not_asked == "not asked: 3 timeouts in a row this game"


# -- a tournament --------------------------------------------------------------------------
@pytest.mark.parametrize("status, disqualify_broken, plays", [
    (Status.OK, False, True), (Status.OK, True, True),
    (Status.LOAD_ERROR, False, True), (Status.LOAD_ERROR, True, False),
])
def test_who_plays_from_round_1(status, disqualify_broken, plays):
    assert FAULT_POLICY.plays_from_start(status, disqualify_broken) is plays


@pytest.mark.parametrize("faults, limit, reason", [
    (0, None, None), (99, None, None), (4, 5, None),
    (5, 5, "5 faults (limit 5)"), (7, 5, "7 faults (limit 5)"), (1, 1, "1 fault (limit 1)"),
])
def test_disqualification_by_the_fault_limit(faults, limit, reason):
    assert FAULT_POLICY.over_fault_limit(faults, limit) == reason


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_only_a_crash_marks_an_agent_crashed(kind):
    assert FAULT_POLICY.marks_crashed(kind) is (kind is CRASH)


# opened as (status, message), disqualified by the limit, out before round 1, first crash
# -> the final status and message
@pytest.mark.parametrize("opened, disqualified, out_before, crash, final", [
    ((Status.OK, None), None, False, None, (Status.OK, None)),
    ((Status.OK, None), None, False, "died", (Status.CRASHED, "crashed: died")),
    ((Status.OK, None), "5 faults (limit 5)", False, "died",
     (Status.DISQUALIFIED, "5 faults (limit 5)")),
    ((Status.LOAD_ERROR, "bad"), None, False, None, (Status.LOAD_ERROR, "bad")),
    ((Status.LOAD_ERROR, "bad"), None, False, "died", (Status.LOAD_ERROR, "bad")),
    ((Status.LOAD_ERROR, "bad"), None, True, None,
     (Status.DISQUALIFIED, "does not load: bad")),
    ((Status.LOAD_ERROR, "bad"), "3 faults (limit 3)", True, None,
     (Status.DISQUALIFIED, "3 faults (limit 3)")),
])
def test_the_final_status(opened, disqualified, out_before, crash, final):
    assert FAULT_POLICY.status(*opened, disqualified, out_before, crash) == final


@pytest.mark.parametrize("status", STATUSES)
def test_disqualified_is_read_from_the_status(status):
    assert FAULT_POLICY.disqualified(status) is (status is Status.DISQUALIFIED)
    assert FAULT_POLICY.disqualified(str(status)) is (status is Status.DISQUALIFIED)


# -- validate and the autograder -----------------------------------------------------------
@pytest.mark.parametrize("kind, code, text, check", [
    (INVALID, "bad-answer", "bad answer: x", GradeCheck.PLAYS),
    (EXCEPTION, "exception", "x", GradeCheck.PLAYS),
    (TIMEOUT, "timeout", "x", GradeCheck.PLAYS),
    (CRASH, "exception", "the agent's process died: x", GradeCheck.PLAYS),
])
def test_validates_verdict_for_each_fault(kind, code, text, check):
    assert FAULT_POLICY.problem_code(kind) == code
    assert FAULT_POLICY.problem_text(kind, "x") == text
    assert FAULT_POLICY.failed_check(FAULT_POLICY.problem_code(kind)) is check


def test_a_file_that_does_not_load_fails_the_loads_check():
    assert FAULT_POLICY.failed_check(FaultCode.LOAD_ERROR) is GradeCheck.LOADS


@pytest.mark.parametrize("code", list(FaultCode))
def test_only_a_timeout_stops_validation(code):
    assert FAULT_POLICY.stops_validation(code) is (code is FaultCode.TIMEOUT)


def test_the_fault_codes_are_validates_and_the_autograders():
    from harness.autograder.grade import CHECKS
    from harness.validation.problems import CODES, HINTS

    assert set(FaultCode) <= set(CODES) and set(FaultCode) <= set(HINTS)
    by_name = {check.name.split(":")[0]: check.codes for check in CHECKS}
    for code in FaultCode:
        owner = FAULT_POLICY.failed_check(code)
        assert code in by_name["Loads" if owner is GradeCheck.LOADS else "Plays"]
    assert by_name["Plays"] == FAULT_POLICY.codes_failing(GradeCheck.PLAYS)


# -- one owner: nobody else compares a fault kind or a status to decide ----------------------
HARNESS = Path(__file__).resolve().parent.parent / "harness"
OWNERS = {"harness/core/verdicts.py", "harness/core/fault_policy.py"}
# a comparison with a member outside the owners, and why it is not a policy decision
ALLOWED_MEMBERS = {
    # the REPL's handle rewords the process handle's timeout for a REPL that lives on
    ("harness/isolation/handles/repl.py", "FaultKind.TIMEOUT"),
}
WORDS = {str(w) for w in (*STATUSES, *FAULT_KINDS, *FaultCode)}
# what names a status, a fault's kind or a problem code in an expression
SUBJECTS = {"status", "kind", "code"}


def _subject(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in SUBJECTS or node.id.endswith(("_status", "_kind"))
    if isinstance(node, ast.Attribute):
        return node.attr in SUBJECTS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in SUBJECTS
    return False


def _words(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in WORDS else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [w for element in node.elts for w in _words(element)]
    return []


def _members(node: ast.AST) -> list[str]:
    """FaultKind.X and Status.X (but Status.OK: whether an agent had any trouble at all is
    a reading, not a consequence) in a compared expression."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id in ("FaultKind", "Status") \
            and f"{node.value.id}.{node.attr}" != "Status.OK":
        return [f"{node.value.id}.{node.attr}"]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [m for element in node.elts for m in _members(element)]
    return []


def _offences(path: Path, root: Path = HARNESS.parent) -> list[str]:
    where = path.relative_to(root).as_posix()
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if any(_subject(o) for o in operands):
            found += [f"{where}:{node.lineno}: compares with the word {w!r}"
                      for o in operands for w in _words(o)]
        found += [f"{where}:{node.lineno}: decides on {m}"
                  for o in operands for m in _members(o) if (where, m) not in ALLOWED_MEMBERS]
    return found


def test_no_module_but_the_owner_compares_fault_kinds_or_statuses():
    offences = [offence for path in sorted(HARNESS.rglob("*.py"))
                if path.relative_to(HARNESS.parent).as_posix() not in OWNERS
                for offence in _offences(path)]
    assert not offences, "ask harness/core/fault_policy.py instead:\n" + "\n".join(offences)


def test_the_check_catches_what_it_forbids(tmp_path):
    """The scan finds each way a rule could be decided again outside the owner."""
    sample = tmp_path / "harness" / "sample.py"
    sample.parent.mkdir()
    sample.write_text('if fault.kind == "timeout": pass\n'
                      'if row["status"] in ("crashed", "ok"): pass\n'
                      'if kind is FaultKind.CRASH: pass\n'
                      'if e.status != Status.LOAD_ERROR: pass\n'
                      'if e.status != Status.OK: pass\n'
                      'if param.name in ("timeout", "memory_limit"): pass\n', encoding="utf-8")
    found = _offences(sample, tmp_path)
    assert [line.split(": ", 1)[1] for line in found] == [
        "compares with the word 'timeout'", "compares with the word 'crashed'",
        "compares with the word 'ok'", "decides on FaultKind.CRASH",
        "decides on Status.LOAD_ERROR"]


# -- the table decides what the process handle does ------------------------------------------
SLOW_FIRST_CALL = """import time

calls = []

def SlowFirst(hist, score):
    calls.append(1)
    if len(calls) == 1:
        time.sleep(3)
    return ["C", "C", "C"]
"""


@pytest.mark.slow
@pytest.mark.parametrize("process", [Process.REPLACED, Process.KEPT])
def test_the_process_handle_does_to_the_process_what_the_table_says(tmp_path, monkeypatch,
                                                                     process):
    """A call past its limit: with the table's row (REPLACED) the game's process is ended
    and a fresh one catches up at the next request; with the row changed to KEPT, the
    handle keeps it. The handle asks the table; it decides nothing of its own."""
    from harness.agents.specs import file_spec
    from harness.core import fault_policy
    from harness.core.rules import Payoffs
    from harness.isolation.handles.agent_handle import GameStart
    from harness.isolation.handles.opening import Isolation, open_handle

    row = CONSEQUENCES[Event.NO_ANSWER]
    monkeypatch.setitem(fault_policy.CONSEQUENCES, Event.NO_ANSWER,
                        fault_policy.Consequence(row.kind, process, row.out_for_game))
    agent = tmp_path / "SlowFirst.py"
    agent.write_text(SLOW_FIRST_CALL)
    handle = open_handle(file_spec(agent), Isolation("process", timeout=0.3))
    try:
        handle.start_game(GameStart(1, 3, Payoffs()))
        serial = handle.host.serial
        handle.request(None)
        reply = handle.collect()
        assert reply.fault is not None and reply.fault.kind == TIMEOUT, reply
        ended = handle.host.serial == serial + 1   # END went to its zygote
        assert ended == (process is Process.REPLACED)
        assert handle.stale == (process is Process.REPLACED)
    finally:
        handle.close()
