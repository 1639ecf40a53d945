"""A language-model agent's turn as `play` and `show --game` print it: under the turn's
row, what it heard, said and answered (the JSON trace carries every prompt in full). Model
output is untrusted: every piece goes through harness/core/safe_text.py."""
from __future__ import annotations

from harness.core.safe_text import line

INDENT = "      > "
SHOWN = 160                  # characters of one response in the table


def talk_json(talk: dict) -> dict:
    return {"calls": [{"prompt": call["prompt"], "response": call["response"],
                       "error": call["error"], "latency": call["latency"],
                       "tries": call["tries"], "structured": call.get("structured"),
                       "prompt_tokens": call.get("prompt_tokens"),
                       "completion_tokens": call.get("completion_tokens")}
                      for call in talk.get("calls", [])],
            "first": talk.get("first"), "heard": talk.get("heard"), "chat": talk.get("chat"),
            "chat_problem": talk.get("chat_problem"), "parse_error": talk.get("parse_error")}


def talk_lines(game, index: int, sides, names: dict) -> list[str]:
    """Lines for turn `index` (from 0) of `game`, for the sides in order."""
    lines = []
    for side in sides:
        talk = game.talk.get((side, index))
        if talk is None:
            continue
        who = line(names[side])
        if talk.get("heard") is not None:
            lines.append(f"{INDENT}{who} heard: {_cut(talk['heard'])}")
        if talk.get("chat") is not None or talk.get("chat_problem"):
            said = _cut(talk.get("chat") or "")
            problem = talk.get("chat_problem")
            lines.append(f"{INDENT}{who} said: {said}" +
                         (f"  (not shown: {line(problem)})" if problem else ""))
        for number, call in enumerate(talk.get("calls", []), 1):
            label = "answered" if number == 1 else f"answered again ({number})"
            if call["response"] is None:
                lines.append(f"{INDENT}{who} {label}: nothing ({line(call['error'] or '')})")
            else:
                lines.append(f"{INDENT}{who} {label}: {_cut(call['response'])}  "
                             f"[{call['latency']:.2f} s{_tokens(call)}]")
    return lines


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return line(flat if len(flat) <= SHOWN else flat[:SHOWN] + "...")


def _tokens(call: dict) -> str:
    asked, answered = call.get("prompt_tokens"), call.get("completion_tokens")
    return "" if asked is None or answered is None else f", {asked}+{answered} tokens"
