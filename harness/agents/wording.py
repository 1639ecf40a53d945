"""One voice for what every command says about a path or an agent it cannot use, so
`tournament`, `play`, `monitor` and `validate` word the same problem the same way. Why a
path cannot be used at all is harness/agents/agent_files.py's `unusable_path`, below the
languages this module names."""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from .agent_files import unusable_path
from .axelrod_strategies import suggestion_for
from .builtins import BUILTINS
from .lang import SUFFIXES


def looks_like_a_path(argument: str) -> bool:
    """A path rather than a name: it has a folder separator or an agent file suffix."""
    return (os.sep in argument or "/" in argument or argument.startswith((".", "~"))
            or Path(argument).suffix.lower() in SUFFIXES)


def unknown_agent(argument: str, searched=()) -> str:
    """AGENT that is no file, folder, built-in or agent found where names are looked up."""
    reason = unusable_path(argument) or f"{argument}: no such file or folder"
    if looks_like_a_path(argument) or (Path(argument).is_symlink()):
        return reason
    meant = _agent_file_named(argument, searched)
    if meant is not None:
        return (f"unknown agent {argument!r}: no file or folder of that name; did you mean "
                f"the agent file {meant}? (name the file, with its suffix)")
    where = "".join(f", nor an agent file in {folder}" for folder in searched)

    close = difflib.get_close_matches(argument.lower(), sorted(BUILTINS), n=1, cutoff=0.8)
    close = close or [spec for spec in [suggestion_for(argument)] if spec]
    guess = f"; did you mean {close[0]}?" if close else ""
    return (f"unknown agent {argument!r}: no file or folder of that name, nor a built-in "
            f"agent{where}{guess} (built-ins: {', '.join(sorted(BUILTINS))}; or memory:BITS, "
            "qtable:MODEL.json, llm:NAME, axelrod:NAME)")


def _agent_file_named(name: str, searched=()) -> str | None:
    """The agent files NAME (any case) in the current folder or the first searched one
    that has any: the paths to give for them, joined by "or"."""
    for folder in (Path("."), *searched):
        try:
            found = sorted(path for path in folder.iterdir()
                           if path.stem.lower() == name.lower() and path.suffix in SUFFIXES
                           and path.is_file())
        except OSError:
            continue
        if found:  # every one: the same agent in two languages is a student's usual case
            return " or ".join(str(path) for path in found)
    return None


def same_name(name: str, sources: list[str]) -> str:
    """Several agents under one name: every one of them named, not just two."""
    count = {2: "two", 3: "three", 4: "four"}.get(len(sources), str(len(sources)))
    listed = ", ".join(sources[:-1]) + f" and {sources[-1]}"
    return f"{count} agents named {name}: {listed}; a tournament cannot tell them apart"


def found_by_name(argument: str, spec) -> str | None:
    """What a command says when the bare name ARGUMENT played an agent file: which file (a
    name is looked up in the current folder first, then where names are looked up), so
    no result leaves the user guessing whether it was theirs or the bundled one."""
    if not spec.is_file or looks_like_a_path(argument) or Path(argument).exists():
        return None
    return f"{argument} is the agent file {spec.source}"


def several_files(name: str, paths) -> str:
    """A bare name that several agent files of one folder answer to (a team's agent in
    Python and in Lisp): every one of them named, and the way to choose."""
    listed = " or ".join(str(path) for path in paths)
    return (f"agent {name!r}: {len(paths)} agent files answer to that name; did you mean "
            f"the agent file {listed}? (name the file, with its suffix)")
