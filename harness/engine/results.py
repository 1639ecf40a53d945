"""What a tournament produces, and how it ranks (docs/rules.md, "The result")."""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.agents.specs import AgentSpec
from harness.core.fault_policy import FAULT_POLICY
from harness.core.seeds import name_order
from harness.core.verdicts import FAULT_KINDS, Status

from .game import GameRecord


@dataclass
class Entrant:
    spec: AgentSpec
    status: Status = Status.OK
    message: str | None = None
    output: str = ""          # what its process printed (capped), for the instructor
    sha256: str | None = None  # read from a record: the source as it was run

    @property
    def name(self) -> str:
        return self.spec.name


@dataclass
class RoundResult:
    number: int
    game_length: int
    scores: dict[str, int]
    dropped: list[str]


@dataclass(frozen=True)
class Standing:
    rank: int
    agent: str
    score: int
    dropped_in: int | None
    faults: dict[str, int]


@dataclass
class TournamentResult:
    seed: int
    settings: object
    entrants: list[Entrant]
    rounds: list[RoundResult] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)
    # what a record (harness/store) adds: the replicates' summary, when it ran, and by what
    replicates: object | None = None
    started_at: str | None = None
    harness_version: str | None = None
    # {language: runtime version} that played it ("lisp": "SBCL 2.2.9.debian"); None for a
    # record made before runtimes were recorded
    runtimes: dict | None = None
    # `tournament --ecology`: Axelrod's ecological tournament of the run (harness/run/ecology.py)
    ecology: object | None = None
    # {agent: why it did not load}, as its handle was opened (a live run's, not a record's)
    load_errors: dict = field(default_factory=dict)

    def pairs(self) -> list[tuple[str, int]]:
        """The monitor's answer: (agent score) best first."""
        return [(s.agent, s.score) for s in self.standings]


def settle_statuses(entrants: list[Entrant], games, disqualified: dict[str, str],
                    dropped_in: dict[str, int | None]) -> None:
    """Each agent's final status, from what was recorded and nothing else, so that a run
    and its resumption say the same (the fault policy decides it: FaultPolicy.status)."""
    crashes = first_crashes(games)
    for entrant in entrants:
        name = entrant.name
        entrant.status, entrant.message = FAULT_POLICY.status(
            entrant.status, entrant.message, disqualified.get(name),
            dropped_in.get(name) == 0, crashes.get(name))


def first_crashes(games) -> dict[str, str]:
    """The message of each agent's first fault that marks it crashed, in the order the
    games are recorded."""
    return {name: fault.message
            for name, fault in first_faults(games, FAULT_POLICY.marks_crashed).items()}


def first_faults(games, counted=lambda kind: True) -> dict:
    """Each agent's first fault (of a kind `counted` takes), in the order the games are
    recorded: {name: Fault}."""
    first: dict = {}
    for game in games:
        for side, name in (("a", game.a), ("b", game.b)):
            if name not in first:
                for _turn, fault in game.faults(side):
                    if counted(fault.kind):
                        first[name] = fault
                        break
    return first


def fault_counts(games, names) -> dict[str, dict[str, int]]:
    """Each named agent's faults in `games`, by kind: {name: {kind: count}}. One pass over
    the games, however many names (a 360-agent round has 64,620 of them)."""
    counts: dict[str, dict[str, int]] = {name: {kind: 0 for kind in FAULT_KINDS}
                                         for name in names}
    for game in games:
        for (side, _turn), fault in game.fault_at.items():
            tally = counts.get(game.a if side == "a" else game.b)
            if tally is not None:
                tally[fault.kind] += 1
    return counts


def rank(names, rounds: list[RoundResult], dropped_in: dict[str, int | None],
         games, disqualified=()) -> list[Standing]:
    """Ranked by the round an agent was dropped in (last standing first), then that round's
    score, then name; agents equal on round and score share a rank. A disqualified agent
    ranks below every agent dropped in the same round for its score."""
    totals = {name: 0 for name in names}
    last_score = {name: 0 for name in names}
    for result in rounds:
        for name, score in result.scores.items():
            totals[name] += score
            last_score[name] = score

    def merit(name):
        out = dropped_in.get(name)
        return (0 if out is None else 1, -(out or 0), name in disqualified, -last_score[name])

    ordered = sorted(names, key=lambda name: (merit(name), name_order(name)))
    faults = fault_counts(games, names)
    standings, previous, current_rank = [], None, 0
    for position, name in enumerate(ordered, 1):
        if merit(name) != previous:
            current_rank, previous = position, merit(name)
        standings.append(Standing(current_rank, name, totals[name], dropped_in.get(name),
                                  faults[name]))
    return standings
