"""A game, turn by turn, as `play` prints it (and `show --game` reprints it from a record).

Played moves that noise flipped are marked with `*`, so a student sees what their agent
meant, what was actually played, and why the score moved."""
from __future__ import annotations

from .safe_text import line


def _sides(game, first: str | None):
    """("a", "b") or ("b", "a"): print the agent the user named first on the left."""
    return ("b", "a") if first is not None and first == game.b and first != game.a else ("a", "b")


def _side(turn, side):
    return ((turn.intended_a, turn.played_a, turn.fault_a) if side == "a"
            else (turn.intended_b, turn.played_b, turn.fault_b))


def marked(intended: str, played: str) -> str:
    return "".join(p + ("*" if p != i else "") for i, p in zip(intended, played))


def _score(turn, left):
    return turn.score if left == "a" else (turn.score[1], turn.score[0])


def trace_dict(game, seed: int, first: str | None = None) -> dict:
    left, right = _sides(game, first)
    names = {"a": game.a, "b": game.b}
    turns = []
    for number, turn in enumerate(game.turns, 1):
        entry = {"turn": number, "faults": {}}
        for key, side in (("a", left), ("b", right)):
            intended, played, fault = _side(turn, side)
            entry[key] = {"intended": list(intended), "played": list(played)}
            entry["faults"][key] = ({"kind": fault.kind, "message": fault.message}
                                    if fault else None)
        entry["score"] = list(_score(turn, left))
        turns.append(entry)
    score = game.score if left == "a" else (game.score[1], game.score[0])
    return {"seed": seed, "agents": [names[left], names[right]], "score": list(score),
            "turns": turns}


def trace_table(game, seed: int, first: str | None = None, header: str = "") -> str:
    """For a terminal: names and fault messages escaped (`line`); `header` is the caller's."""
    left, right = _sides(game, first)
    names = {"a": line(game.a), "b": line(game.b)}
    per_turn = len(game.turns[0].intended_a) if game.turns else 3
    width = max(len(names[left]), len(names[right]), 2 * per_turn + 8)
    lines = [header] if header else []
    lines.append(f"{'turn':>4}  {names[left]:<{width}}  {names[right]:<{width}}  "
                 f"{'score':>9}  notes")
    for number, turn in enumerate(game.turns, 1):
        cells, notes = [], []
        for side in (left, right):
            intended, played, fault = _side(turn, side)
            cells.append(f"{intended} > {marked(intended, played)}")
            if fault:
                notes.append(f"{names[side]} {line(fault.kind)}: {line(fault.message)}")
        mine, theirs = _score(turn, left)
        lines.append(f"{number:>4}  {cells[0]:<{width}}  {cells[1]:<{width}}  "
                     f"{mine:>4} {theirs:>4}  {'; '.join(notes)}".rstrip())
    score = game.score if left == "a" else (game.score[1], game.score[0])
    lines.append(f"Final score: {names[left]} {score[0]}, {names[right]} {score[1]}")
    lines.append("Each cell: intended > played; * marks a move flipped by noise.")
    return "\n".join(lines)
