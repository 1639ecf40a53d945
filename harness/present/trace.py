"""A game, turn by turn, as `play` prints it (and `show --game` reprints it from a record).

Played moves that noise flipped are marked with `*`, so a student sees what their agent
meant, what was actually played, and why the score moved."""
from __future__ import annotations

from harness.agents.llm.turn_lines import talk_json, talk_lines
from harness.core.safe_text import line


def _sides(game, first: str | None):
    """("a", "b") or ("b", "a"): print the agent the user named first on the left."""
    return ("b", "a") if first is not None and first == game.b and first != game.a else ("a", "b")


def _side(turn, side):
    return ((turn.intended_a, turn.played_a, turn.fault_a) if side == "a"
            else (turn.intended_b, turn.played_b, turn.fault_b))


def marked(intended: str, played: str) -> str:
    return "".join(p + ("*" if p != i else "") for i, p in zip(intended, played, strict=False))


def _score(turn, left):
    return turn.score if left == "a" else (turn.score[1], turn.score[0])


def trace_dict(game, seed: int, first: str | None = None) -> dict:
    left, right = _sides(game, first)
    names = {"a": game.a, "b": game.b}
    turns = []
    for number, turn in enumerate(game.turns, 1):
        faults: dict[str, dict | None] = {}
        entry: dict[str, object] = {"turn": number, "faults": faults}
        for key, side in (("a", left), ("b", right)):
            intended, played, fault = _side(turn, side)
            entry[key] = {"intended": list(intended), "played": list(played)}
            faults[key] = ({"kind": fault.kind, "message": fault.message}
                                    if fault else None)
        entry["score"] = list(_score(turn, left))
        talk = {key: game.talk[side, number - 1] for key, side in (("a", left), ("b", right))
                if (side, number - 1) in game.talk}
        if talk:   # a language-model agent's prompts, responses and chat (harness/agents/llm)
            entry["talk"] = {key: talk_json(value) for key, value in talk.items()}
        turns.append(entry)
    score = game.score if left == "a" else (game.score[1], game.score[0])
    return {"seed": seed, "agents": [names[left], names[right]], "score": list(score),
            "turns": turns}


class TraceRows:
    """The trace table a line at a time: `play` prints each turn as soon as it is played,
    `trace_table` all at once. Names and fault messages escaped (`line`)."""

    def __init__(self, a: str, b: str, first: str | None, per_turn: int):
        self.left, self.right = ("b", "a") if first is not None and first == b and first != a \
            else ("a", "b")
        self.names = {"a": line(a), "b": line(b)}
        self.width = max(len(self.names["a"]), len(self.names["b"]), 2 * per_turn + 8)

    def head(self) -> str:
        width, names = self.width, self.names
        return (f"{'turn':>4}  {names[self.left]:<{width}}  {names[self.right]:<{width}}  "
                f"{'score':>9}  notes")

    def row(self, number: int, turn) -> str:
        cells, notes = [], []
        for side in (self.left, self.right):
            intended, played, fault = _side(turn, side)
            cells.append(f"{intended} > {marked(intended, played)}")
            if fault:
                notes.append(f"{self.names[side]} {line(fault.kind)}: {line(fault.message)}")
        mine, theirs = _score(turn, self.left)
        return (f"{number:>4}  {cells[0]:<{self.width}}  {cells[1]:<{self.width}}  "
                f"{mine:>4} {theirs:>4}  {'; '.join(notes)}".rstrip())

    def talk(self, game, index: int) -> list[str]:
        """A language-model agent's exchange this turn (none for other agents)."""
        if not game.talk:
            return []

        return talk_lines(game, index, (self.left, self.right), {"a": game.a, "b": game.b})

    def foot(self, game_score) -> list[str]:
        score = game_score if self.left == "a" else (game_score[1], game_score[0])
        return [f"Final score: {self.names[self.left]} {score[0]}, "
                f"{self.names[self.right]} {score[1]}",
                "Each cell: intended > played; * marks a move flipped by noise."]


def trace_table(game, seed: int, first: str | None = None, header: str = "") -> str:
    """For a terminal: names and fault messages escaped (`line`); `header` is the caller's."""
    per_turn = len(game.turns[0].intended_a) if game.turns else 3
    rows = TraceRows(game.a, game.b, first, per_turn)
    lines = [header] if header else []
    lines.append(rows.head())
    for number, turn in enumerate(game.turns, 1):
        lines.append(rows.row(number, turn))
        lines += rows.talk(game, number - 1)
    return "\n".join(lines + rows.foot(game.score))
