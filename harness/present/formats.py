"""A tournament result as people and programs read it: table, json, lisp, csv.

Each form is registered where it is written (`@result_format(name)`, as Hy's reader
registers each form's handler beside it): FORMATS is the one list of them, which --format
offers in this order (the first is the default) and outputs.deliver prints by. A new form
is one registered function here."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from harness.core.counts import counted
from harness.core.safe_text import line
from harness.core.verdicts import Status
from harness.engine.parameters import as_json as parameters_json
from harness.engine.results import first_faults

# imports inside functions here are deferred (`pdharness` starts light)


@dataclass(frozen=True)
class ResultFormat:
    """One way to print a tournament's result: `--format NAME`."""

    name: str
    write: Callable[[Any, Any, str | None], str]   # (result, roster, incomplete) -> text
    seed_on_stderr: bool = False   # the text has no place for the seed: stderr says it


FORMATS: dict[str, ResultFormat] = {}


def result_format(name: str, seed_on_stderr: bool = False):
    """Register the decorated `(result, roster, incomplete) -> text` as --format NAME: the
    roster (team members, or None) and whether the record is unfinished (its note, or
    None) are there for the forms that show them."""
    def register(write):
        FORMATS[name] = ResultFormat(name, write, seed_on_stderr)
        return write
    return register


def params_dict(settings) -> dict:
    return parameters_json(settings)


def game_dict(game) -> dict:
    return {"round": game.round, "a": game.a, "b": game.b, "length": game.length,
            "score": list(game.score),
            "faults": {"a": game.fault_count("a"), "b": game.fault_count("b")}}


def _dropped_text(dropped_in, still_in: str = "winner") -> str:
    if dropped_in is None:
        return still_in
    return "did not play" if dropped_in == 0 else f"round {dropped_in}"


def _horizon_words(params) -> str:
    if "horizon" not in params:
        return ""
    if params["horizon"] == "fixed":
        return " fixed"
    return f" geometric (stop {params['stop_prob']:g})"


def _ranking_scores(result, last_round: int) -> dict[str, int]:
    """Agent -> its score in the round it is ranked by: the round it was dropped in, or
    the last one played for an agent still in."""
    scores = {r.number: r.scores for r in result.rounds}
    found = {}
    for s in result.standings:
        number = last_round if s.dropped_in is None else s.dropped_in
        if s.agent in scores.get(number, {}):
            found[s.agent] = scores[number][s.agent]
    return found


def as_table(result, incomplete=None) -> str:
    """For a terminal: every name and message from an agent or a record escaped (`line`).
    How the run ended is said as what it is (harness/present/outcome.py): a run stopped by
    --max-rounds or an unfinished record has no winner."""
    from .outcome import STOPPED, UNFINISHED, WINNER, default_answer_notes, ending

    params = params_dict(result.settings)
    lines = [f"Levinson tournament  seed {result.seed}  flip {params['flip'][0]:g} "
             f"{params['flip'][1]:g} ({params['decay']})  length {params['length'][0]}-"
             f"{params['length'][1]}{_horizon_words(params)}  {params['moves_per_turn']} "
             "moves/turn  "
             f"isolation {params['isolation']}", ""]
    end = ending(result, bool(incomplete))
    if end.kind != WINNER:
        lines += [line(end.headline), ""]
    names = {s.agent: line(s.agent) for s in result.standings}
    width = max([len("agent")] + [len(name) for name in names.values()])
    # without a winner the order is by the score of the round each agent left in (the last
    # round for those still in), not by the total: the table shows that score too
    by_round = _ranking_scores(result, end.last_round) if end.kind in (STOPPED,
                                                                         UNFINISHED) else None
    ranked_by = f"  {'round score':>11}" if by_round is not None else ""
    lines.append(f"{'rank':>4}  {'agent':<{width}}  {'score':>7}  {'out':<12}{ranked_by}  "
                 "faults")
    for s in result.standings:
        faults = ", ".join(f"{n} {k}" for k, n in s.faults.items() if n) or "-"
        shown = f"  {by_round.get(s.agent, '-'):>11}" if by_round is not None else ""
        lines.append(f"{s.rank:>4}  {names[s.agent]:<{width}}  {s.score:>7}  "
                     f"{_dropped_text(s.dropped_in, end.out_word):<12}{shown}  {faults}")
    notes = default_answer_notes(result)
    lines += [f"Note: {line(notes[s.agent])}" for s in result.standings if s.agent in notes]
    lines += ["", "Rounds:"]
    for r in result.rounds:
        dropped = ", ".join(map(line, r.dropped)) or "nobody (all tied)"
        turns = (f"games up to {counted(r.game_length, 'turn')}" if "stop_prob" in params
                 else counted(r.game_length, "turn"))
        lines.append(f"  {r.number:>3}: {turns}, dropped {dropped}")
    if any(game.talk for game in result.games):   # language-model agents played
        from harness.agents.llm.model_metrics import table_lines

        lines += table_lines(result.games)
    problems = problem_lines(result)
    if problems:
        lines += ["", "Agents with problems:", *problems]
    return "\n".join(lines)


def problem_lines(result) -> list[str]:
    """Each agent that did not load, crashed or was disqualified, with why, and each agent
    that faulted, with how often and its first fault's message (which says where:
    `Name.py:12: ...`, or the Lisp function): what the counts in the table leave out."""
    first = first_faults(result.games)
    faults = {s.agent: sum(s.faults.values()) for s in result.standings}
    lines = []
    for e in result.entrants:
        # a crashed agent's message says "crashed: ..." itself (the JSON's message)
        why = (e.message or "").removeprefix(f"{e.status}: ")
        said = [f"{e.status}: {why}"] if e.status != Status.OK else []
        fault = first.get(e.name)
        if fault is not None:
            count = counted(faults.get(e.name, 0), "fault")
            told = e.message is not None and fault.message in e.message   # crashed: ...
            said.append(count if told else f"{count}, the first ({fault.kind}): "
                                             f"{fault.message}")
        if said:
            lines.append(f"  {line(e.name)}: {line('; '.join(said))}")
    return lines


@result_format("table")
def _table(result, roster, incomplete) -> str:
    text = as_table(result, incomplete=incomplete)
    replicates = getattr(result, "replicates", None)   # tournament --replicates N
    if replicates is not None:
        text += "\n\n" + replicates.as_table()
    if result.ecology is not None:   # tournament --ecology N
        survivors = ", ".join(f"{line(name)} {share:.1%}"
                              for name, share in result.ecology.survivors())
        text += (f"\n\nEcology after {result.ecology.generations} generations "
                 f"(Axelrod's ecological tournament of this run): survivors {survivors}")
    return text


def result_dict(result) -> dict:
    return {
        "seed": result.seed,
        "params": params_dict(result.settings),
        # {language: the runtime that played its agents}; null from a record made before
        "runtimes": getattr(result, "runtimes", None),
        "agents": [{"name": e.name, "source": e.spec.source, "language": e.spec.language,
                    "status": e.status, "message": e.message} for e in result.entrants],
        "rounds": [{"round": r.number, "game_length": r.game_length, "scores": r.scores,
                    "dropped": r.dropped} for r in result.rounds],
        "games": [game_dict(game) for game in result.games],
        "standings": [{"rank": s.rank, "agent": s.agent, "score": s.score,
                       "dropped_in": s.dropped_in, "faults": s.faults}
                      for s in result.standings],
        "outcome": _outcome(result),
    }


def _outcome(result) -> dict:
    """How the run ended (winner, co-winners, stopped by --max-rounds) and the notes on
    agents that played the default answer (harness/present/outcome.py)."""
    from .outcome import default_answer_notes, ending

    end = ending(result)
    return {"ending": end.kind, "after_round": end.last_round, "still_in": list(end.still_in),
            "notes": default_answer_notes(result)}


def as_json(result) -> str:
    from harness.store.metrics import json_extras  # "metrics", and "replicates" when run

    ecology = {"ecology": result.ecology.as_dict()} if result.ecology is not None else {}
    return json.dumps({**result_dict(result), **json_extras(result), **ecology}, indent=2)


@result_format("json")
def _json(result, roster, incomplete) -> str:
    return as_json(result)


def as_lisp(result) -> str:
    from lisp_bridge.sexpr import dumps
    from lisp_bridge.sexpr_data import symbol

    return dumps([[symbol(name), score] for name, score in result.pairs()])


@result_format("lisp", seed_on_stderr=True)
def _lisp(result, roster, incomplete) -> str:
    return as_lisp(result)


@result_format("csv", seed_on_stderr=True)
def _grades_csv(result, roster, incomplete) -> str:
    """The standings with the roster's columns, as --grades writes them (grades.py)."""
    from .grades import as_grades_csv

    return as_grades_csv(result, roster)
