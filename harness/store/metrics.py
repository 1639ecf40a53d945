"""How each agent played, beyond its score: cooperation (intended and as played after
flips), mutual cooperation, points per move, faults by kind, and the head-to-head table
(points per move of every pairing). Computed from the games' turns, live or recorded."""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.agents.llm.model_metrics import summary
from harness.core.verdicts import FAULT_KINDS


@dataclass
class Tally:
    moves: int = 0
    intended_c: int = 0
    played_c: int = 0
    mutual_c: int = 0
    points: int = 0
    faults: dict[str, int] = field(default_factory=lambda: {k: 0 for k in FAULT_KINDS})

    def as_dict(self) -> dict:
        share = (lambda count: round(count / self.moves, 4)) if self.moves else (lambda _: None)
        return {"moves": self.moves,
                "cooperation_intended": share(self.intended_c),
                "cooperation_played": share(self.played_c),
                "mutual_cooperation": share(self.mutual_c),
                "points_per_move": share(self.points),
                "faults": dict(self.faults)}


@dataclass
class Metrics:
    agents: dict[str, Tally]
    pairs: dict[tuple[str, str], list[int]]    # (me, them) -> [my points, moves]

    def head_to_head(self) -> dict[str, dict[str, float]]:
        """Points per move each agent earned against each opponent it met."""
        table: dict[str, dict[str, float]] = {}
        for (me, them), (points, moves) in sorted(self.pairs.items()):
            if moves:
                table.setdefault(me, {})[them] = round(points / moves, 4)
        return table

    def as_dict(self) -> dict:
        return {"agents": {name: tally.as_dict() for name, tally in self.agents.items()},
                "head_to_head": self.head_to_head()}


def compute(names, games) -> Metrics:
    agents = {name: Tally() for name in names}
    pairs: dict[tuple[str, str], list[int]] = {}
    for game in games:
        a, b = agents.setdefault(game.a, Tally()), agents.setdefault(game.b, Tally())
        moves = _count_game(game, a, b)
        for me, them, points in ((game.a, game.b, game.score[0]),
                                 (game.b, game.a, game.score[1])):
            entry = pairs.setdefault((me, them), [0, 0])
            entry[0] += points
            entry[1] += moves
    return Metrics(agents, pairs)


def columns(game) -> tuple[list[str], list[str], list[str], list[str]]:
    """(intended_a, played_a, intended_b, played_b): one string of moves per turn."""
    if hasattr(game, "played_a"):  # a GameRecord kept by column
        return game.intended_a, game.played_a, game.intended_b, game.played_b
    turns = game.turns
    return ([t.intended_a for t in turns], [t.played_a for t in turns],
            [t.intended_b for t in turns], [t.played_b for t in turns])


def _count_game(game, a: Tally, b: Tally) -> int:
    intended_a, played_a, intended_b, played_b = columns(game)
    whole_a, whole_b = "".join(played_a), "".join(played_b)
    moves = len(whole_a)
    a.intended_c += sum(turn.count("C") for turn in intended_a)
    b.intended_c += sum(turn.count("C") for turn in intended_b)
    a.played_c += whole_a.count("C")
    b.played_c += whole_b.count("C")
    both = sum(1 for x, y in zip(whole_a, whole_b, strict=False) if x == y == "C")
    a.mutual_c += both
    b.mutual_c += both
    for side, tally in (("a", a), ("b", b)):
        for _turn, fault in game.faults(side):
            tally.faults[fault.kind] += 1
    for tally, points in ((a, game.score[0]), (b, game.score[1])):
        tally.moves += moves
        tally.points += points
    return moves


def of_result(result) -> Metrics:
    return compute([e.name for e in result.entrants], result.games)


def json_extras(result) -> dict:
    """What --format json adds to the contract's keys: "metrics" (per agent and head to head)
    and, with --replicates, "replicates"."""
    extras = {"metrics": of_result(result).as_dict()}
    if any(game.talk for game in result.games):   # language-model agents played
        extras["llm"] = summary(result.games) or {}
    replicates = getattr(result, "replicates", None)
    if replicates is not None:
        extras["replicates"] = replicates.as_dict()
    return extras
