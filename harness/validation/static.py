"""What a submission defines, read without running it: Python through `ast`, Hy through
Hy's reader, Common Lisp through lisp_bridge's reader (never line matching)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from .problems import Problem

LISP_DEFINERS = {"DEFUN", "DEFMACRO", "DEFVAR", "DEFPARAMETER", "DEFCONSTANT", "DEFSTRUCT",
                 "DEFCLASS", "DEFGENERIC", "DEFMETHOD"}


@dataclass
class Definitions:
    functions: list[tuple[str, int]] = field(default_factory=list)   # (name, line)
    others: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, name, line)


class Unreadable(Exception):
    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line, self.message = line, message


def python_definitions(source: str, path: Path) -> Definitions:
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as error:
        raise Unreadable(error.lineno, error.msg)
    found = Definitions()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.functions.append((node.name, node.lineno))
    return found


def hy_definitions(source: str, path: Path) -> Definitions:
    import hy
    from hy.errors import HyError
    from hy.reader import read_many

    from lisp_bridge.hy_loader import static_reader, unclosed_form

    found = Definitions()
    reader = static_reader(source)  # knows #' and hyrule's #%; names unclosed brackets' lines
    try:
        for form in read_many(source, filename=str(path), reader=reader):
            if (isinstance(form, hy.models.Expression) and len(form) > 1
                    and form[0] == hy.models.Symbol("defn")
                    and isinstance(form[1], hy.models.Symbol)):
                found.functions.append((hy.mangle(str(form[1])), form.start_line or 0))
    except HyError as error:
        unclosed = unclosed_form(reader, error)
        if unclosed:
            raise Unreadable(*unclosed)
        raise Unreadable(getattr(error, "lineno", None),
                         " ".join(str(getattr(error, "msg", error)).split()))
    return found


def lisp_definitions(source: str, path: Path) -> Definitions:
    from lisp_bridge.sexpr import LispSyntaxError, Symbol, read_all_with_lines

    try:
        located = read_all_with_lines(source)
    except LispSyntaxError as error:
        raise Unreadable(error.line, error.message)
    found = Definitions()
    for item in located:
        form = item.form
        if not (isinstance(form, list) and len(form) > 1 and isinstance(form[0], Symbol)):
            continue
        head, target = form[0].name, form[1]
        if isinstance(target, list) and target and isinstance(target[0], Symbol):
            target = target[0]  # (defstruct (name options...)), (defun (setf name) ...)
        if not isinstance(target, Symbol):
            continue
        if head == "DEFUN":
            found.functions.append((target.text, item.line))
        elif head in LISP_DEFINERS or head.startswith("DEFINE-"):
            found.others.append((head.lower(), target.text, item.line))
    return found


READERS = {"python": python_definitions, "hy": hy_definitions, "lisp": lisp_definitions}


def check_file(path: Path, language: str, source: str) -> tuple[list[Problem], str | None]:
    """Problems found by reading, and the agent name the file defines (if it does)."""
    try:
        found = READERS[language](source, path)
    except Unreadable as error:
        where = f"line {error.line}: " if error.line else ""
        return [Problem("syntax-error", f"{path.name}: {where}{error.message}")], None
    expected = path.stem
    same = (lambda a, b: a.lower() == b.lower()) if language == "lisp" else (
        lambda a, b: a == b)
    own = [name for name, _ in found.functions if same(name, expected)]
    candidates = [(name, line) for name, line in found.functions
                  if _looks_like_agent(name) and not _is_helper_of(name, expected)]
    problems = []
    others = [(n, l) for n, l in candidates if not same(n, expected)]
    if own:
        agent = own[0]
        if others:
            problems.append(Problem("several-agents", f"{path.name} defines {expected} and "
                                    f"also {', '.join(f'{n} (line {l})' for n, l in others)}"))
    elif len(others) == 1:
        agent = others[0][0]
        problems.append(Problem("file-name-mismatch", f"{path.name} defines {agent} (line "
                                f"{others[0][1]}); name the file {agent}{path.suffix}"))
    elif others:
        agent = None
        problems.append(Problem("several-agents", f"{path.name} defines several agents "
                                f"({', '.join(n for n, _ in others)}) and none named {expected}"))
    else:
        agent = None
        problems.append(Problem("no-agent", f"{path.name} defines no function named {expected}"))
    if language == "lisp" and agent:
        problems += _unprefixed(found, agent, path)
    return problems, agent


def _looks_like_agent(name: str) -> bool:
    return bool(name) and name[0].isupper() and name.isalpha()


def _is_helper_of(name: str, agent: str) -> bool:
    return name.lower().startswith(agent.lower()) and name.lower() != agent.lower()


def _unprefixed(found: Definitions, agent: str, path: Path) -> list[Problem]:
    def bare(name):
        return name.strip("*+").lower()

    offenders = [(kind, name, line) for kind, name, line in found.others
                 if not bare(name).startswith(agent.lower())]
    offenders += [("defun", name, line) for name, line in found.functions
                  if not name.lower().startswith(agent.lower())]
    if not offenders:
        return []
    listed = ", ".join(f"{kind} {name} (line {line})" for kind, name, line in offenders)
    return [Problem("helper-not-prefixed",
                    f"{path.name}: names must start with {agent}: {listed}")]
