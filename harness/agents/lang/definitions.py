"""What a file defines, as a language's static reader reports it (Language.definitions):
the functions and other global names, where they are, and why a file could not be read.
Reading never runs any of the file's code; validation (harness/validation/static.py)
draws its conclusions from this."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Function:
    name: str          # as the language looks it up (Hy names mangled)
    written: str       # as the file writes it
    line: int
    nested: bool = False     # inside another top-level form (Lisp)
    two_arguments: bool = True   # may be called as (name hist score)
    bound_only: bool = False     # a name bound to a value that may or may not be a function

    def where(self) -> str:
        return f"inside the form at line {self.line}" if self.nested else f"line {self.line}"


@dataclass
class Definitions:
    functions: list[Function] = field(default_factory=list)
    others: list[tuple[str, str, Function]] = field(default_factory=list)  # (kind, bare name)
    notes: list[str] = field(default_factory=list)   # warnings about the reading itself
    # the modules its top level imports, dotted, as written (absolute imports only): what
    # a host imports before any game when they are declared libraries (agent_imports.py)
    imports: list[str] = field(default_factory=list)


class Unreadable(Exception):
    """Not the language's syntax: the file would not load either."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line, self.message = line, message


class NotReadHere(Exception):
    """Beyond what a static read takes on (too large, nested past the parser's recursion
    limit): nothing is concluded from reading; playing the file decides."""
