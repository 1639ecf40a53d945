"""The fault policy, decided here once: what each thing that can go wrong on a call does to
the game (the default answer, the agent's process kept, replaced or ended, the agent out for
the rest of the game), the timeouts-in-a-row rule, disqualification, the status recorded at
the end, and the verdict `validate` and the autograder give for it.

The model is kaggle-environments' `core.py` (`step`): a timeout, an error and an invalid
action become a status in one place. The game loop, the tournament, the record's readers,
`validate` and the autograder ask `FAULT_POLICY`; none of them compares a fault kind or a
status to decide a consequence itself (tests/test_fault_policy.py checks that, and pins the
table). It sits in core, below the agent handles, so that the handles that make faults can
ask it which kind to record.

On every fault the turn is played as the default answer (--on-fault): a fault never ends a
tournament by itself, only --max-faults disqualifies (and not loading, unless --keep-broken).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .counts import counted
from .verdicts import FaultKind, Status, Word


class Event(Enum):
    """What happened on one call: the situations the policy tells apart."""

    BAD_ANSWER = "its answer was not the moves asked for"
    RAISED = "it raised (or signalled) an error"
    STOPPED = "its REPL stopped the call at the time limit"
    LATE = "it answered after the time limit (in the monitor's process)"
    NO_ANSWER = "no answer within the time limit"
    DIED = "its process died"
    BROKE_PROTOCOL = "its process wrote on the monitor's channel"
    NOT_RESTARTED = "its process could not be restarted"
    NOT_ASKED = "it timed out too many calls in a row this game"


class Process(Enum):
    """What becomes of the agent's process."""

    KEPT = "kept"
    REPLACED = "killed and replaced by a fresh one told the game so far"
    ENDED = "gone for this game; a fresh one for the next"


@dataclass(frozen=True)
class Consequence:
    kind: FaultKind       # recorded as (the JSON's `faults`, the record's fault.kind)
    process: Process
    out_for_game: bool    # not asked again this game: the default answer every turn


class FaultCode(Word):
    """validate's problem codes (docs/interface.md) for an agent that does not load or faults
    while playing; the other codes are about the file (harness/validation/problems.py)."""

    LOAD_ERROR = "load-error"
    BAD_ANSWER = "bad-answer"
    TIMEOUT = "timeout"
    EXCEPTION = "exception"


class GradeCheck(Enum):
    """The autograder's checks a fault code fails (harness/autograder/grade.py's CHECKS)."""

    LOADS = "loads"
    PLAYS = "plays"


_KEPT, _REPLACED, _ENDED = Process.KEPT, Process.REPLACED, Process.ENDED
# the table: what happened -> what is recorded and what it does to the game
CONSEQUENCES: dict[Event, Consequence] = {
    Event.BAD_ANSWER: Consequence(FaultKind.INVALID, _KEPT, False),
    Event.RAISED: Consequence(FaultKind.EXCEPTION, _KEPT, False),
    Event.STOPPED: Consequence(FaultKind.TIMEOUT, _KEPT, False),
    Event.LATE: Consequence(FaultKind.TIMEOUT, _KEPT, False),
    Event.NO_ANSWER: Consequence(FaultKind.TIMEOUT, _REPLACED, False),
    Event.DIED: Consequence(FaultKind.CRASH, _ENDED, True),
    Event.BROKE_PROTOCOL: Consequence(FaultKind.INVALID, _ENDED, True),
    Event.NOT_RESTARTED: Consequence(FaultKind.CRASH, _ENDED, True),
    Event.NOT_ASKED: Consequence(FaultKind.TIMEOUT, _KEPT, True),
}

# validate: a fault's kind -> its problem code, and how it words the fault's message
_CODES = {FaultKind.INVALID: FaultCode.BAD_ANSWER, FaultKind.EXCEPTION: FaultCode.EXCEPTION,
          FaultKind.CRASH: FaultCode.EXCEPTION, FaultKind.TIMEOUT: FaultCode.TIMEOUT}
_WORDED = {FaultKind.INVALID: "bad answer: ", FaultKind.CRASH: "the agent's process died: "}
_CHECKS = {FaultCode.LOAD_ERROR: GradeCheck.LOADS, FaultCode.BAD_ANSWER: GradeCheck.PLAYS,
           FaultCode.TIMEOUT: GradeCheck.PLAYS, FaultCode.EXCEPTION: GradeCheck.PLAYS}


@dataclass(frozen=True)
class FaultPolicy:
    # An agent whose calls time out this many times in a row in one game is not asked again
    # in that game: each remaining turn is a `timeout` fault played as the default answer (a
    # hung agent would otherwise cost the time limit on every turn); it is asked again from
    # its next game. The game applies it to every agent alike (harness/engine/game.py),
    # whatever runs it: in a process of its own a late call is killed at the time limit; in
    # the monitor's process (`--isolation none`), where a call cannot be interrupted, a call
    # that returns after the limit is the timeout.
    timeouts_in_a_row: int = 3

    # -- a call ----------------------------------------------------------------------------
    def consequence(self, event: Event) -> Consequence:
        return CONSEQUENCES[event]

    def kind(self, event: Event) -> FaultKind:
        """The fault kind recorded for what happened."""
        return CONSEQUENCES[event].kind

    # -- a game ----------------------------------------------------------------------------
    @property
    def not_asked(self) -> str:
        """The message of each turn played without asking (Event.NOT_ASKED)."""
        return f"not asked: {self.timeouts_in_a_row} timeouts in a row this game"

    def timeouts_after(self, in_a_row: int, kind: FaultKind | None) -> int:
        """Timeouts in a row after a turn whose fault (None: it answered) was `kind`."""
        return in_a_row + 1 if kind == FaultKind.TIMEOUT else 0

    def asks(self, in_a_row: int) -> bool:
        """Whether the game still asks an agent with `in_a_row` timeouts in a row."""
        return in_a_row < self.timeouts_in_a_row

    # -- a tournament ----------------------------------------------------------------------
    def plays_from_start(self, status: Status, disqualify_broken: bool) -> bool:
        """False for an agent out before round 1: it did not load (with --keep-broken,
        `disqualify_broken` False, it plays the default answer throughout instead)."""
        return not (disqualify_broken and status == Status.LOAD_ERROR)

    def over_fault_limit(self, faults: int, max_faults: int | None) -> str | None:
        """Why an agent with `faults` so far is disqualified at the end of the round, or None.
        Every recorded fault counts, whatever its kind."""
        if max_faults is None or faults < max_faults:
            return None
        return f"{counted(faults, 'fault')} (limit {max_faults})"

    def marks_crashed(self, kind: FaultKind) -> bool:
        """A fault of this kind makes the agent's status `crashed` (the first one says why)."""
        return kind == FaultKind.CRASH

    def status(self, status: Status, message: str | None, disqualified: str | None,
               out_before_start: bool, crash: str | None) -> tuple[Status, str | None]:
        """An agent's final status and message, from what was recorded and nothing else (so
        a run and its resumption say the same): `status` and `message` as it was opened
        (LOAD_ERROR and why, or OK); `disqualified` the fault limit's reason, if it was;
        `out_before_start` whether it was dropped before round 1; `crash` its first crash's
        message, if any."""
        if disqualified is not None:
            return Status.DISQUALIFIED, disqualified
        if status == Status.LOAD_ERROR:
            if out_before_start:   # the default, unless --keep-broken
                return Status.DISQUALIFIED, f"does not load: {message}"
            return status, message
        if crash is not None:
            return Status.CRASHED, f"crashed: {crash}"
        return status, message

    def disqualified(self, status: Status) -> bool:
        """The status says the agent was disqualified (ranked below its round's others)."""
        return status == Status.DISQUALIFIED

    # -- validate and the autograder -------------------------------------------------------
    def problem_code(self, kind: FaultKind) -> FaultCode:
        """validate's problem code for a fault made while playing its games."""
        return _CODES[kind]

    def problem_text(self, kind: FaultKind, message: str) -> str:
        """How validate words a fault's message for the student."""
        return _WORDED.get(kind, "") + message

    def stops_validation(self, code: str) -> bool:
        """After this problem another game would only wait for the same loop."""
        return code == FaultCode.TIMEOUT

    def failed_check(self, code: FaultCode) -> GradeCheck:
        """The autograder's check a fault code fails."""
        return _CHECKS[code]

    def codes_failing(self, check: GradeCheck) -> frozenset[FaultCode]:
        return frozenset(code for code, failed in _CHECKS.items() if failed is check)


FAULT_POLICY = FaultPolicy()
