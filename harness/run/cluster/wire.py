"""What crosses back from a worker: plain data (str, int, lists, dicts) in a JSON text,
which the monitor parses and checks before any of it is used.

A game crosses as the moves its agents intended, its faults and its first warnings: the
monitor plays it again from those (flips, scores) with the game's own seed, exactly as a
resume checks a record, so nothing a worker says decides a score unchecked.
"""
from __future__ import annotations

import json

from harness.core.counts import counted
from harness.core.verdicts import FAULT_KINDS, FaultKind
from harness.engine.replay import NotMoves, check_turns, replay
from harness.isolation.handles.agent_handle import Fault
from harness.isolation.handles.captured_output import OUTPUT_CAP

MAX_TEXT = 8192                 # a fault's or warning's message (host lines are 4096 bytes)
MAX_ANSWER = 256 * 1024 * 1024  # one task's JSON text
INTEGER = 2 ** 63               # scores and counts stay SQLite integers


class BadAnswer(Exception):
    """A worker's answer that is not what the task asked for."""


# -- worker side -----------------------------------------------------------------------------
def game_out(game) -> dict:
    return {"round": game.round, "a": game.a, "b": game.b, "length": game.length,
            "seed": game.seed, "score": list(game.score),
            "intended_a": list(game.intended_a), "intended_b": list(game.intended_b),
            "faults": [[side, index, fault.kind, fault.message]   # in turn order, a then b
                       for (side, index), fault in sorted(game.fault_at.items(),
                                                          key=lambda item: item[0][::-1])],
            "warnings": dict(game.warnings)}


def dumps(answer) -> str:
    return json.dumps(answer, separators=(",", ":"))


# -- monitor side ----------------------------------------------------------------------------
def loads(text) -> dict:
    if not isinstance(text, str) or len(text) > MAX_ANSWER:
        raise BadAnswer("not a JSON text of a usable size")
    try:
        answer = json.loads(text)
    except (ValueError, RecursionError):
        raise BadAnswer("not valid JSON") from None
    if not isinstance(answer, dict):
        raise BadAnswer("not a JSON object")
    return answer


def game_in(data, job, params):
    """The GameRecord of `job` from a worker's `data`, played again here; BadAnswer
    unless it is that game, with moves that are moves and the score the worker found."""
    fields = _fields(data, ("round", "a", "b", "length", "seed", "score", "intended_a",
                            "intended_b", "faults", "warnings"), "a game")
    if [fields[key] for key in ("round", "a", "b", "length", "seed")] != \
            [job.round, job.a, job.b, job.length, job.seed] or \
            any(type(fields[key]) is not int for key in ("round", "length", "seed")):
        raise BadAnswer("a game that was not asked for")
    intended = {side: fields["intended_" + side] for side in "ab"}
    try:
        check_turns(intended, job.length, params)
    except NotMoves:
        raise BadAnswer(f"{job.a} vs {job.b}: moves that are not "
                        f"{counted(job.length, 'turn')}") from None
    faults = _faults(fields["faults"], job.length)
    try:
        game = replay(job.a, job.b, intended, faults, job.length, job.seed, params, job.round)
    except NotMoves:
        raise BadAnswer(f"{job.a} vs {job.b}: a faulty turn without the default answer"
                        ) from None
    if fields["score"] != list(game.score):
        raise BadAnswer(f"{job.a} vs {job.b}: a score the moves do not give")
    game.fault_at.update(faults)
    game.warnings.update(_warnings(fields["warnings"]))
    return game


def _faults(data, length: int) -> dict:
    if not isinstance(data, list):
        raise BadAnswer("faults are not a list")
    faults = {}
    for entry in data:
        if not (isinstance(entry, list) and len(entry) == 4):
            raise BadAnswer("a fault is not [side, turn, kind, message]")
        side, index, kind, message = entry
        if side not in ("a", "b") or type(index) is not int or not 0 <= index < length \
                or kind not in FAULT_KINDS or (side, index) in faults:
            raise BadAnswer("a fault of no turn, or of no kind")
        faults[side, index] = Fault(FaultKind(kind), text(message, "a fault's message"))
    return faults


def _warnings(data) -> dict:
    if not isinstance(data, dict) or not set(data) <= {"a", "b"}:
        raise BadAnswer("warnings are not by side")
    return {side: text(message, "a warning") for side, message in data.items()}


def text(value, what: str, cap: int = MAX_TEXT) -> str:
    if not isinstance(value, str) or len(value) > cap:
        raise BadAnswer(f"{what} is not a string of at most {cap} characters")
    return value


def whole(value, what: str, low: int = -INTEGER, high: int = INTEGER - 1) -> int:
    if type(value) is not int or not low <= value <= high:
        raise BadAnswer(f"{what} is not a whole number from {low} to {high}")
    return value


def _fields(data, keys, what: str) -> dict:
    if not isinstance(data, dict) or set(data) != set(keys):
        raise BadAnswer(f"{what} without the fields {', '.join(keys)}")
    return data


def standings_in(rows, names, extra: int = 0) -> list[list]:
    """A tournament's standings from a worker: one row per agent of `names`, each
    [agent, rank, score, dropped_in, ...extra counts], checked; best first as sent."""
    if not isinstance(rows, list) or len(rows) != len(names):
        raise BadAnswer("standings of other agents")
    seen, checked = set(), []
    for row in rows:
        if not isinstance(row, list) or len(row) != 4 + extra:
            raise BadAnswer("a standing of the wrong shape")
        agent, rank, score, dropped_in = row[:4]
        if not isinstance(agent, str) or agent not in names or agent in seen:
            raise BadAnswer("standings of other agents")
        seen.add(agent)
        whole(rank, "a rank", 1, len(names))
        whole(score, "a score")
        if dropped_in is not None:
            whole(dropped_in, "a round", 0, INTEGER - 1)
        checked.append([agent, rank, score, dropped_in,
                        *(whole(count, "a count", 0) for count in row[4:])])
    return checked


def outputs_in(data, names) -> dict[str, str]:
    """What the worker's processes of each agent of `names` printed (captured, capped)."""
    return texts_by_agent(data, names, "captured output", 2 * OUTPUT_CAP)


def texts_by_agent(data, names, what: str, cap: int = MAX_TEXT) -> dict[str, str]:
    """{agent: text} of agents of `names` only, each text checked (`what`: what the texts
    are, e.g. "captured output"; at most `cap` characters)."""
    if not isinstance(data, dict):
        raise BadAnswer(f"{what}, not given by agent")
    if not set(data) <= set(names):
        raise BadAnswer(f"{what} of agents not in the tournament")
    return {name: text(said, what, cap) for name, said in data.items()}
