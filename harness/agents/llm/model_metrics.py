"""How language-model agents played, per agent and per game: cooperation (intended), parse
errors (turns that ended in the default answer for want of a readable answer), corrective
retries, HTTP retries, chats (said, shown, mean length), the mean latency of a model call,
the tokens the servers said the calls used (prompt and completion: what a hosted API
bills) and the structured forms they were asked in. Computed from the games' exchanges,
live or recorded; in `--format json` as "llm" and in the table as a section, only when a
language-model agent played."""
from __future__ import annotations

from dataclasses import dataclass

from harness.core.safe_text import line


@dataclass
class LlmTally:
    turns: int = 0
    moves: int = 0
    cooperated: int = 0
    parse_errors: int = 0
    retries: int = 0          # corrective prompts after unreadable answers
    http_retries: int = 0     # requests repeated after 429, 5xx, timeouts, lost connections
    calls: int = 0
    latency: float = 0.0
    chats: int = 0
    chats_shown: int = 0
    chat_chars: int = 0
    prompt_tokens: int = 0        # as the servers' usage said, over the calls that said it
    completion_tokens: int = 0
    without_usage: int = 0        # calls answered without token counts to believe
    forms: frozenset = frozenset()   # the structured forms its calls were asked in

    def add(self, talk: dict, intended: str) -> None:
        self.turns += 1
        self.moves += len(intended)
        self.cooperated += intended.count("C")
        self.parse_errors += talk.get("parse_error") is not None
        calls = talk.get("calls", [])
        self.retries += max(0, len(calls) - 1)
        for call in calls:
            self.calls += 1
            self.http_retries += max(0, (call.get("tries") or 1) - 1)
            self.latency += call.get("latency") or 0.0
            self._count_tokens(call)
        chat = talk.get("chat")
        if chat is not None:
            self.chats += 1
            self.chat_chars += len(chat)
            self.chats_shown += talk.get("chat_problem") is None

    def _count_tokens(self, call: dict) -> None:
        if call.get("structured"):
            self.forms = self.forms | {call["structured"]}
        if call.get("response") is None:
            return                    # no answer: nothing to count, nothing unknown
        asked, answered = call.get("prompt_tokens"), call.get("completion_tokens")
        if asked is None or answered is None:
            self.without_usage += 1
        self.prompt_tokens += asked or 0
        self.completion_tokens += answered or 0

    def merge(self, other: LlmTally) -> None:
        for key, value in vars(other).items():
            setattr(self, key, getattr(self, key) + value if key != "forms"
                    else self.forms | value)

    def as_dict(self) -> dict:
        def share(count, whole):
            return round(count / whole, 4) if whole else None

        return {"turns": self.turns, "cooperation": share(self.cooperated, self.moves),
                "parse_errors": self.parse_errors,
                "parse_error_rate": share(self.parse_errors, self.turns),
                "retries": self.retries, "http_retries": self.http_retries,
                "calls": self.calls, "mean_latency": share(self.latency, self.calls),
                "chats": self.chats, "chats_shown": self.chats_shown,
                "mean_chat_length": share(self.chat_chars, self.chats),
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "calls_without_usage": self.without_usage,
                "structured": sorted(self.forms)}


def _game_tallies(game) -> dict[str, LlmTally]:
    tallies: dict[str, LlmTally] = {}
    for (side, index), talk in sorted(game.talk.items()):
        intended = (game.intended_a if side == "a" else game.intended_b)[index]
        tallies.setdefault(side, LlmTally()).add(talk, intended)
    return tallies


def summary(games) -> dict | None:
    """{"agents": {name: metrics}, "games": [...]}, or None when no model played."""
    agents: dict[str, LlmTally] = {}
    per_game = []
    for number, game in enumerate(games, 1):
        if not game.talk:
            continue
        sides = _game_tallies(game)
        for side, tally in sides.items():
            agents.setdefault(game.a if side == "a" else game.b, LlmTally()).merge(tally)
        per_game.append({"game": number, "round": game.round, "a": game.a, "b": game.b,
                         **{side: tally.as_dict() for side, tally in sides.items()}})
    if not agents:
        return None
    return {"agents": {name: tally.as_dict() for name, tally in sorted(agents.items())},
            "games": per_game}


def table_lines(games) -> list[str]:
    found = summary(games)
    if found is None:
        return []
    lines = ["", "Language models:"]
    for name, m in found["agents"].items():
        chats = (f"  chats {m['chats']} ({m['chats_shown']} shown, mean "
                 f"{m['mean_chat_length']:.0f} chars)" if m["chats"] else "")
        latency = f"{m['mean_latency']:.2f} s" if m["mean_latency"] is not None else "-"
        cooperation = f"{m['cooperation']:.0%}" if m["cooperation"] is not None else "-"
        lines.append(f"  {line(name)}: cooperation {cooperation}  parse errors "
                     f"{m['parse_errors']}/{m['turns']}  retries {m['retries']}  "
                     f"HTTP retries {m['http_retries']}  calls {m['calls']}  mean latency "
                     f"{latency}  tokens {tokens_text(m)}  "
                     f"answers {'/'.join(m['structured']) or '-'}{chats}")
    return lines


def tokens_text(metrics: dict) -> str:
    """`1200 in, 90 out` (and how many calls said no count to believe)."""
    unknown = metrics["calls_without_usage"]
    return (f"{metrics['prompt_tokens']} in, {metrics['completion_tokens']} out" +
            (f" ({unknown} call{'s' * (unknown != 1)} without usage)" if unknown else ""))
