"""What a submission defines, read without running it by its language's reader
(Language.definitions: Python through `ast`, Hy through Hy's reader, Common Lisp through
lisp_bridge's reader; never line matching, so comments, strings and nested forms cannot
fool it).

From what a file defines follow `no-agent`, `several-agents`, `file-name-mismatch` and, for
Common Lisp, `helper-not-prefixed`; a file that cannot be read is a `syntax-error`.

Reading is total and bounded: no code of the file's (or of a library it names: no Hy reader
macro, no `#.`) runs, a file larger than its language's static_read_limit is not read, and
a file that does not fit the reader's limits (Python's own recursion limit while parsing)
is not judged here: a warning says so and the contract played decides, as the tournament's
own loading would.
"""
from __future__ import annotations

from pathlib import Path

from harness.agents.lang import LANGUAGES
from harness.agents.lang.definitions import Definitions, Function, NotReadHere, Unreadable
from harness.agents.uploaded_names import looks_like_agent, renamed_agent, renamed_warning

from .problems import Problem


def read_definitions(path: Path, language: str, source: str) -> Definitions:
    """What SOURCE defines; Unreadable, NotReadHere, or a result: never anything else."""
    reader = LANGUAGES[language]
    limit = reader.static_read_limit
    if len(source) > limit:
        raise NotReadHere(f"larger than the {limit >> 10} KiB read for a {language} file")
    try:
        return reader.definitions(source, path)
    except (Unreadable, NotReadHere):
        raise
    except RecursionError:
        raise NotReadHere("nested too deeply") from None
    except Exception as error:  # a reader's own limit we did not foresee: still one file's
        raise NotReadHere(f"the reader stopped: {type(error).__name__}") from error


# -- what follows from the definitions ------------------------------------------------------
def check_file(path: Path, language: str, source: str,
               warnings: list[str] | None = None) -> tuple[list[Problem], str | None]:
    """Problems found by reading, and the agent name the file defines (if it does); what
    limited the reading is added to WARNINGS."""
    warnings = [] if warnings is None else warnings
    try:
        found = read_definitions(path, language, source)
    except Unreadable as error:
        where = f"{path.name}:{error.line}" if error.line else path.name  # as a load error says
        message = error.message if len(error.message) <= 300 else error.message[:300] + "..."
        return [Problem("syntax-error", f"{where}: {message}")], None
    except NotReadHere as error:
        warnings.append(f"{path.name} was not read before playing ({error}): its names and "
                        "definitions were checked only by loading it")
        return [], None
    warnings += found.notes

    fold = LANGUAGES[language].fold_name  # Lisp's reader upcases names
    expected = _meant(path, found, warnings)
    own = [f for f in found.functions if fold(f.name) == fold(expected)]
    others = [f for f in found.functions if fold(f.name) != fold(expected)
              and looks_like_agent(f) and not _is_helper_of(f.name, expected)]
    problems = []
    if own:
        agent = expected
        if others:
            problems.append(Problem("several-agents", f"{path.name} defines {expected} and "
                                    f"also {_listed(others)}: one agent per file"))
    else:
        agent = None
        problems.append(_no_own_agent(path, found, others))
        if len(others) == 1 and problems[0].code == "file-name-mismatch":
            agent = others[0].written
    if LANGUAGES[language].shares_one_image:
        problems += _unprefixed(found, agent or expected, path, set(others))
    return problems, agent


def _meant(path: Path, found: Definitions, warnings: list[str]) -> str:
    """The agent's name the file is checked against: its own name, or for a file an LMS
    renamed (`JonesSmith (1).py`) the agent it defines, played as in every command
    (harness/agents/uploaded_names.py), with a warning naming the file to use."""
    agent = renamed_agent(path.stem, found.functions)
    if agent is None:
        return path.stem
    warnings.append(renamed_warning(path, agent))
    return agent


def _no_own_agent(path: Path, found: Definitions, others: list[Function]) -> Problem:
    expected = path.stem
    differently = [f for f in found.functions if f.name.lower() == expected.lower()]
    if differently:
        written = differently[0]
        return Problem("file-name-mismatch", f"{path.name} defines {written.written} "
                       f"({written.where()}): the file and the function must have exactly "
                       "the same name, capitals included")
    if len(others) == 1:
        other = others[0]
        return Problem("file-name-mismatch", f"{path.name} defines {other.written} "
                       f"({other.where()}), not {expected}: name the file "
                       f"{other.written}{path.suffix} (or rename the function)")
    if others:
        return Problem("several-agents", f"{path.name} defines several agents "
                       f"({_listed(others)}) and none named {expected}")
    return Problem("no-agent", f"{path.name} defines no function named {expected}, taking "
                   "(hist score)")


def _is_helper_of(name: str, agent: str) -> bool:
    return name.lower().startswith(agent.lower()) and name.lower() != agent.lower()


def _listed(functions: list[Function]) -> str:
    return ", ".join(f"{f.written} ({f.where()})" for f in functions)


def _unprefixed(found: Definitions, agent: str, path: Path, reported) -> list[Problem]:
    prefix = agent.upper()  # |Escaped| names keep their case; compare as the reader would not
    offenders = [(kind, function) for kind, name, function in found.others
                 if not name.strip("*+%").upper().startswith(prefix)]
    offenders += [("defun", function) for function in found.functions
                  if not function.name.upper().startswith(prefix) and function not in reported]
    if not offenders:
        return []
    offenders.sort(key=lambda pair: pair[1].line)
    listed = "; ".join(f"{kind} {function.written} ({function.where()})"
                       for kind, function in offenders)
    return [Problem("helper-not-prefixed",
                    f"{path.name}: every name it defines must start with {agent} "
                    f"(the course's monitor loads every submission into one Lisp image): "
                    f"{listed}")]
