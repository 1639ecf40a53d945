"""The report's evidence: when the run happened, which harness ran it, each agent's source
hash, and a turn-by-turn view of the games the report points at (each heat-map cell: the
pair's first game; each fault listed: its game), so a disputed result can be checked in the
same offline file.

The views are plain text in `<details>` sections (no script: following a link opens the
section). Only linked games are included - for 40 agents, one game per pair and the games
of the faults listed - so the page stays a few MB where every game would be hundreds.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.agents.agent_files import file_hash
from harness.core.package import __version__

from .trace import TraceRows

MESSAGE_SHOWN = 160          # characters of a fault message in a game view


@dataclass
class Linked:
    ids: list[int]                     # game ids (1-based, in play order) to include
    first_of_pair: dict                # frozenset({a, b}) -> id of their first game


def linked_games(result, faults_per_agent: int = 5) -> Linked:
    """The games the report links to: the first game of each pair, the games of the faults
    the Faults section lists (the first `faults_per_agent` of each agent, as it lists)."""
    first: dict = {}
    listed: dict[str, int] = {}
    ids = set()
    for game_id, game in enumerate(result.games, 1):
        first.setdefault(frozenset((game.a, game.b)), game_id)
        for side, name in (("a", game.a), ("b", game.b)):
            for _turn, _fault in game.faults(side):
                if listed.get(name, 0) < faults_per_agent:
                    listed[name] = listed.get(name, 0) + 1
                    ids.add(game_id)
    ids |= set(first.values())
    return Linked(sorted(ids), first)


def game_views(result, ids) -> list[dict]:
    views = []
    for game_id in ids:
        game = result.games[game_id - 1]
        views.append({"id": game_id, "round": game.round, "a": game.a, "b": game.b,
                      "score": f"{game.score[0]}–{game.score[1]}",
                      "faults": game.fault_count("a") + game.fault_count("b"),
                      "text": turns_text(game)})
    return views


def turns_text(game) -> str:
    """A game turn by turn as plain text, its sides A and B (the report's games, a ladder's
    game pages): intended > played moves, flips marked *, faults, the running score."""
    per_turn = len(game.intended_a[0]) if game.intended_a else 3
    rows = TraceRows("A", "B", None, per_turn)
    lines = [rows.head()]
    for number, turn in enumerate(game.turns, 1):
        lines.append(_cut(rows.row(number, turn)))
        lines += rows.talk(game, number - 1)   # a language model's exchange, if any
    return "\n".join(lines)


def _cut(row: str) -> str:
    return row if len(row) <= 60 + MESSAGE_SHOWN else row[:60 + MESSAGE_SHOWN] + "…"


def evidence(result) -> dict:
    """When the run started (the record's time, so a report made again from the record is
    the same file) and the harness version."""
    return {"started": getattr(result, "started_at", None),
            "version": getattr(result, "harness_version", None) or __version__}


def source_hash(entrant) -> str | None:
    """The sha256 the record kept for the agent's file, else the file's as it is now."""
    kept = getattr(entrant, "sha256", None)
    if kept:
        return kept
    if entrant.spec.is_file:   # a bundle's covers every file it holds
        return entrant.spec.sha256()
    path = entrant.spec.path
    return file_hash(path) if path is not None else None
