"""The stable problem codes of INTERFACE.md, with a hint a student can act on."""
from __future__ import annotations

from dataclasses import dataclass

HINTS = {
    "name-format": "Name the agent after the team: each member's last name, capitalized, "
                   "run together (KhosmoodLevinson).",
    "name-order": "Put the last names in alphabetical order (KhosmoodLevinson, not "
                  "LevinsonKhosmood), in the file name and the function name.",
    "file-name-mismatch": "Name the file exactly like the agent function inside it.",
    "no-agent": "Define a function named after the file, taking (hist score).",
    "several-agents": "Submit one agent per file; rename helpers to start with the agent's name.",
    "helper-not-prefixed": "Start every definition's name with the agent's name "
                           "(KhosmoodLevinson-helper): in one Lisp image all defuns are global.",
    "syntax-error": "Fix the syntax at the line shown; the file must load as written.",
    "load-error": "Make the file load on its own: run it, fix the error shown.",
    "bad-answer": "Return a list of exactly 3 moves, each C or D.",
    "timeout": "Answer each call within the time limit; avoid unbounded loops.",
    "exception": "Your agent raised an error during a game: fix the error shown.",
    "duplicate-name": "Two submissions use the same agent name: each team needs its own.",
    "not-on-roster": "The name does not match a team on the roster: check the spelling of "
                     "every member's last name.",
}


@dataclass(frozen=True)
class Problem:
    code: str
    message: str

    @property
    def hint(self) -> str:
        return HINTS.get(self.code, "")

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}
