"""The stable problem codes of docs/interface.md, each with a hint a student can act on."""
from __future__ import annotations

from dataclasses import dataclass

from harness.agents.lang import LANGUAGES, listed_suffixes
from harness.core.fault_policy import FaultCode

# the codes for an agent that does not load or faults while playing are the fault policy's
CODES = ("name-format", "name-order", "file-name-mismatch", "no-agent", "several-agents",
         "helper-not-prefixed", "syntax-error", FaultCode.LOAD_ERROR, FaultCode.BAD_ANSWER,
         FaultCode.TIMEOUT, FaultCode.EXCEPTION, "duplicate-name", "not-on-roster")

# A hint per code; a language's own hint for a code (Language.hints) comes first
HINTS: dict[str, str] = {
    "name-format": "Name the agent after the team: each member's last name, capitalized, "
                   "run together, letters only (KhosmoodLevinson). `pdharness new` writes "
                   "a correctly named file.",
    "name-order": "Put the last names in alphabetical order (KhosmoodLevinson, not "
                  "LevinsonKhosmood), in the file name and the function name. A hyphenated "
                  "name (Smith-Jones) reads as two names: name the team in a comment near "
                  "the top, `Team: Muñoz, Smith-Jones` (as `pdharness new` does), or check "
                  "with --roster.",
    "file-name-mismatch": "Name the file exactly like the agent function inside it, "
                          f"capitals included, ending in {listed_suffixes()}.",
    "no-agent": f"Submit a {listed_suffixes()} file defining a function named after the file.",
    "several-agents": "Submit one agent per file; start every helper's name with the "
                      "agent's name (KhosmoodLevinsonCount).",
    "helper-not-prefixed": "Start every name the file defines with the agent's name "
                           "(KhosmoodLevinson-count, *KhosmoodLevinson-moves*): in one Lisp "
                           "image every defun is global, and another team's helper of the "
                           "same name would replace yours.",
    "syntax-error": "Fix the syntax at the line shown (often a missing bracket or quote "
                    "further up); the file must load as written.",
    FaultCode.LOAD_ERROR: "Make the file load with no input: fix the error at the line shown. "
                  "A file it reads or a module it imports goes beside it in a bundle: a "
                  "folder (or .zip) named after the agent, its file at the top (see docs/submit.md, "
                  "'Submission bundles').",
    FaultCode.BAD_ANSWER: "Return exactly 3 moves, each C or D.",
    FaultCode.TIMEOUT: "Answer every call within the time limit: look for a loop that does not end "
               "or work that grows with the history.",
    FaultCode.EXCEPTION: "Your agent raised an error, or its process died (an exit, out of "
                 "memory), on the call shown: handle that hist (the first call's is empty) "
                 "and fix the error.",
    "duplicate-name": "Every agent needs a name of its own: a team submits one file, named "
                      "for its members; keep one of the files that define it.",
    "not-on-roster": "The name does not spell a team on the roster: check the spelling of "
                     "every member's last name, and that every member is listed.",
}


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    fix: str | None = None   # a hint for this case only, where the code's would mislead

    def hint(self, language: str | None = None) -> str:
        """The hint, in LANGUAGE's own terms where it has them."""
        if self.fix:
            return self.fix
        own = LANGUAGES[language].hints if language in LANGUAGES else {}
        return own.get(self.code) or HINTS.get(self.code, "")

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}
