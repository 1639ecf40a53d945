"""What a model is asked: the framing (the system prompt: rules, payoffs, an example turn)
and each turn's message (score, the last 10 turns from its own side, what to answer).

A framing is a template in Python's `string.Template` syntax: `$T $R $P $S` (the payoffs),
`$choices` ("one choice", "3 choices") and `$example` (one made-up turn: the message as
the model will be sent it and an answer in the form it is asked for) are filled in. Two
are shipped (`neutral`, `business`), both ending with `$example`: a small model copies a
format it has seen far more readily than one it is told. A course may give its own file.
The answer's format is asked for in each turn's message, and depends on the request's
form (answer_schema.py): JSON under the schema, or the prose rule's `ACTION:` line (off).
"""
from __future__ import annotations

from pathlib import Path
from string import Template

from harness.core.rules import Scorer

from .answer_schema import OFF, example_answer

SHIPPED = ("neutral", "business")
HISTORY_TURNS = 10
_SAMPLE = {"T": 5, "R": 3, "P": 1, "S": 0, "choices": "3 choices", "example": ""}
_EXAMPLE_MINE, _EXAMPLE_THEIRS = "CDC", "CCD"      # the example's first turn, cut to k
_EXAMPLE_HEARD = "Let us both cooperate."
_EXAMPLE_CHAT = "Agreed: I cooperate while you do."


def shipped_text(name: str) -> str:
    return (Path(__file__).parent / "framings" / f"{name}.txt").read_text(encoding="utf-8")


def check_template(text: str) -> str | None:
    """Why a template cannot be filled in, or None."""
    try:
        Template(text).substitute(_SAMPLE)
    except KeyError as error:
        return (f"unknown placeholder ${error.args[0]} (a framing may use "
                f"{', '.join('$' + key for key in _SAMPLE)})")
    except ValueError as error:
        return f"not a valid template ({error}; write $$ for a dollar sign)"
    return None


def system_prompt(template: str, payoffs, moves_per_turn: int, chat: bool = False,
                  form: str = OFF) -> str:
    choices = "one choice" if moves_per_turn == 1 else f"{moves_per_turn} choices"
    return Template(template).substitute(
        T=payoffs.T, R=payoffs.R, P=payoffs.P, S=payoffs.S, choices=choices,
        example=example_turn(payoffs, moves_per_turn, chat, form))


def example_turn(payoffs, moves_per_turn: int, chat: bool, form: str) -> str:
    """One made-up turn, the second of a game: its message exactly as a turn's is written,
    and an answer that follows it."""
    mine, theirs = _EXAMPLE_MINE[:moves_per_turn], _EXAMPLE_THEIRS[:moves_per_turn]
    got, gave = Scorer(payoffs)(mine, theirs)
    message = turn_message(2, [(mine, theirs, got, gave)], (got, gave), moves_per_turn, chat,
                           _EXAMPLE_HEARD, False, form)
    return ("An example of one turn (made up). You are sent:\n" + message +
            "\nand an answer in the form asked for (its choices only an example) is:\n" +
            answer_example(
                "DCD"[:moves_per_turn], _EXAMPLE_CHAT if chat else None, form))


def answer_example(moves: str, chat: str | None, form: str) -> str:
    if form != OFF:
        return example_answer(moves, chat)
    action = moves if len(moves) == 1 and chat is None else f"ACTION: {' '.join(moves)}"
    return action if chat is None else f"CHAT: {chat}\n{action}"


def answer_format(moves_per_turn: int, chat: bool, form: str = OFF) -> str:
    if form != OFF:
        return _json_format(moves_per_turn, chat)
    if moves_per_turn == 1:
        action = "ACTION: C or ACTION: D"
    else:
        example = " ".join("CDC"[i % 3] for i in range(moves_per_turn))
        action = f"ACTION: and your {moves_per_turn} choices in order, e.g. ACTION: {example}"
    if chat:
        return ("Answer in two lines: first CHAT: and a short message to the other player "
                f"(one line; they read it before they choose, but never your choices), "
                f"then {action}")
    if moves_per_turn == 1:
        return "Answer with one letter, C or D, and nothing else."
    return f"Answer with one line: {action}"


def _json_format(moves_per_turn: int, chat: bool) -> str:
    choices = '"C" or "D"' if moves_per_turn == 1 else \
        f'your {moves_per_turn} choices in order, each "C" or "D"'
    said = '"chat": "a short message to the other player", ' if chat else ""
    told = (" They read your chat (one line) before they choose, but never your choices."
            if chat else "")
    return f'Answer with JSON only: {{{said}"moves": [{choices}]}}.{told}'


def turn_message(turn: int, history, score: tuple[int, int], moves_per_turn: int,
                 chat: bool, heard: str | None, first_speaker: bool, form: str = OFF) -> str:
    """history: (mine, theirs, my points, their points) per turn played, oldest first."""
    lines = [f"Turn {turn}. Score so far: you {score[0]}, the other player {score[1]}."]
    if not history:
        lines.append("This is the first turn.")
    else:
        shown = history[-HISTORY_TURNS:]
        first = len(history) - len(shown) + 1
        lines.append(f"The last {len(shown)} turn{'s' * (len(shown) != 1)}, oldest first "
                     "(your choices; their choices as played; your points; their points):")
        for number, (mine, theirs, got, gave) in enumerate(shown, first):
            lines.append(f"turn {number}: {' '.join(mine)}; {' '.join(theirs)}; {got}; {gave}")
    if chat:
        if first_speaker:
            lines.append("You speak first this turn.")
        elif heard is None:
            lines.append("The other player said nothing this turn.")
        else:
            lines.append(f"The other player says: {heard}")
    lines.append(answer_format(moves_per_turn, chat, form))
    return "\n".join(lines)


def corrective_message(reason: str, moves_per_turn: int, chat: bool, form: str = OFF) -> str:
    return (f"Your answer could not be read ({reason}). "
            + answer_format(moves_per_turn, chat, form))
