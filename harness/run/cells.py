"""One cell of an experiment, a (condition, replicate) tournament: its seed, derived from
the experiment's, and what it returns (placings with the counts the record keeps). Beside
the two folders that play a cell and below both: harness/run/experiment/run.py plays it on
this machine, harness/run/cluster/ on a cluster."""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.agents.population import type_of
from harness.core import seeds


@dataclass(frozen=True)
class UnitResult:
    condition: int          # 1, 2, ... in the file's order
    replicate: int          # 1 .. replicates
    seed: int
    rounds: int
    games: int
    # (agent, type, rank, score, dropped_in, cooperated, moves, faults), best first
    placings: list
    # language models' requests and turns: llm_call / llm_turn rows from the game column on
    llm_calls: list = field(default_factory=list)
    llm_turns: list = field(default_factory=list)
    # {type: why a copy of it did not load}, for the experiment to say: not recorded, and
    # so no part of what makes two results the same
    load_errors: dict = field(default_factory=dict, compare=False)


def unit_seed(experiment_seed: int, condition_name: str, replicate: int) -> int:
    return seeds.derive(experiment_seed, "experiment", condition_name, replicate)


def load_errors_by_type(load_errors: dict) -> dict:
    """{agent: why it did not load} as {type: why} (its first copy's)."""
    by_type: dict = {}
    for agent, why in load_errors.items():
        by_type.setdefault(type_of(agent), why)
    return by_type


def placings(result) -> list:
    cooperated: dict[str, int] = {}
    moves: dict[str, int] = {}
    for game in result.games:
        for name, intended in ((game.a, game.intended_a), (game.b, game.intended_b)):
            text = "".join(intended)
            cooperated[name] = cooperated.get(name, 0) + text.count("C")
            moves[name] = moves.get(name, 0) + len(text)
    return [(s.agent, type_of(s.agent), s.rank, s.score, s.dropped_in,
             cooperated.get(s.agent, 0), moves.get(s.agent, 0),
             sum(s.faults.values()))
            for s in result.standings]
