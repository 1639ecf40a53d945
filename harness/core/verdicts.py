"""What the records say of an agent, in words owned here once: its status at the end of a
tournament, and the kind of each fault it made (docs/interface.md: the JSON's `status` and
`faults`; the record's agent.status and fault.kind columns).

Each word is a `str` whose value is the word itself, so the JSON, CSV, SQLite record and
cluster wire carry exactly the text they always did, and a word read back from any of them
(plain text) compares and hashes equal to its member. Code writes and compares the members,
never the spelled words; readers of a record or a worker's answer check a word against
`STATUSES` or `FAULT_KINDS` before they take it. What a fault means (the kind recorded for
what happened, out for the game, timeouts in a row, disqualification, which status, validate's
verdict) is harness/core/fault_policy.py's.
"""
from __future__ import annotations

from enum import Enum


class Word(str, Enum):
    """A word of the records' vocabulary: printed and formatted as its value (Python 3.10's
    str enums would print `Status.OK`)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Status(Word):
    """An agent's status when the tournament ends."""

    OK = "ok"
    LOAD_ERROR = "load-error"       # its file did not load: default answers throughout
                                    # (--keep-broken; else it is disqualified)
    CRASHED = "crashed"             # one of its games recorded a crash (the first says why)
    DISQUALIFIED = "disqualified"   # by --max-faults, or for not loading (the default)


class FaultKind(Word):
    """Why a turn was played as the default answer. The order is the JSON's and CSV's."""

    INVALID = "invalid"         # not exactly the moves per turn, each C or D
    EXCEPTION = "exception"     # the agent raised (or signalled) an error
    TIMEOUT = "timeout"         # no answer within the time limit
    CRASH = "crash"             # its process died: out for the rest of the game


STATUSES: tuple[Status, ...] = tuple(Status)
FAULT_KINDS: tuple[FaultKind, ...] = tuple(FaultKind)
