"""A file an LMS renamed plays as the agent it defines.

Learning management systems and browsers rename the files they hand back: a second
download of `JonesSmith.py` is `JonesSmith (1).py`, Canvas adds a resubmission's number
(`JonesSmith-1.py`) or the student's login and ids (`jonesa_12345_67890_JonesSmith.py`),
some mark late work (`JonesSmith_late.py`). Such a file still holds the team's agent, and
every command (tournament, play, monitor, resume, validate, the Python API, the
autograder) plays it by the function it defines, with a warning naming the file to use.

The rule, decided once here: a file is played as the one agent it defines, instead of
being named after its file, when
- its name is not itself an agent's name (an agent's name is letters only: `JonesSmith
  (1)`, `JonesSmith-1`, `JonesSmith_late`, `JonesSmith2` are not), and
- exactly one of the functions it defines looks like an agent (a team's name, callable as
  (name hist score)) whose name, capitals included, stands in the file's name as a word
  of its own (not inside a longer run of letters; its helpers, `JonesSmithBest`, do not).
A file whose name is an agent's name but another one than it defines (`Misnamed.py`
defining `SomethingElse`) stays a load error: nothing says which team it belongs to. Two
files that define one agent (`JonesSmith.py` and `JonesSmith (1).py`) are two agents of
one name, the one-line error every command gives for that.

The file is read without running any of it (its language's static reader, as validate
reads it), and only when its name is not an agent's name: an agent file named after its
agent costs nothing more.
"""
from __future__ import annotations

import os
import re
from pathlib import PurePath
from typing import TYPE_CHECKING

from harness.core.errors import LoadError

from .agent_files import read_agent_file
from .lang.definitions import NotReadHere, Unreadable

if TYPE_CHECKING:   # specs.py imports this module: its AgentSpec is only named here
    from pathlib import Path

    from .lang.definitions import Function


def is_agent_name(name: str) -> bool:
    """A name a team's agent can have: letters only (`JonesSmith`, `MuñozSmith`)."""
    return name.isalpha()


def looks_like_agent(function: Function) -> bool:
    """Named like a team (a capital first, letters only, not all capitals) and callable as
    (name hist score): the function a file means as its agent."""
    name = function.written
    return (bool(name) and name[0].isupper() and is_agent_name(name)
            and any(c.islower() for c in name) and function.two_arguments)


def decorated(stem: str, name: str) -> bool:
    """Whether the file name STEM is the agent NAME with what an LMS adds around it."""
    if is_agent_name(stem) or not is_agent_name(name):
        return False
    return re.search(rf"(?<![^\W\d_]){re.escape(name)}(?![^\W\d_])", stem) is not None


def played_as(path: Path, language) -> str | None:
    """The agent the file at PATH (in LANGUAGE, a harness.agents.lang language) is played
    as when an LMS renamed it (see the module's docstring); None when it is played under
    its own name (also when it cannot be read: loading it then says why)."""
    if is_agent_name(path.stem):
        return None

    try:
        data = read_agent_file(path)
        if len(data) > language.static_read_limit:
            return None
        found = language.definitions(data.decode("utf-8"), path)
    except (LoadError, UnicodeDecodeError, Unreadable, NotReadHere, RecursionError):
        return None
    return renamed_agent(path.stem, found.functions)


def renamed_agent(stem: str, functions: list[Function]) -> str | None:
    """The one agent among FUNCTIONS (what a file defines) whose name the file name STEM
    carries with what an LMS adds; None when there is none, or several."""
    named = {f.written for f in functions if looks_like_agent(f) and decorated(stem, f.written)}
    return named.pop() if len(named) == 1 else None


def renamed_warning(path, name: str) -> str:
    """What every command says of a file played as the agent it defines."""
    shown = PurePath(path)
    what, suffix = ("folder", "") if os.path.isdir(path) else ("file", shown.suffix)
    return (f"{shown.name} defines {name}: it plays as {name} (its name is {name}'s with "
            f"what an LMS or a browser adds); name the {what} {name}{suffix}")


def renamed_warnings(specs) -> list[str]:
    """One warning per agent file (specs.AgentSpec) played as the agent it defines, not
    under its own name."""
    return [renamed_warning(spec.source, spec.entry) for spec in specs
            if spec.is_file and spec.path is not None and spec.entry != spec.path.stem]
