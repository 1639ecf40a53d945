"""What every language of agents provides: the one interface behind harness/agents/lang's registry.

A language owns everything about itself: which files it claims, how such a file loads in
the monitor (`--isolation none`) and which host process serves it otherwise, what the
sandbox must show its host and how the host fits under the memory limit, how its files are
read without running them (validation), how a call and a hint are written in it, the
template `pdharness new` writes, the answer spellings only it produces, and how a played
move pair appears in its agents' `hist`; and, as DMOJ's judge has each executor do
(dmoj/executors/base_executor.py), whether it can run here, which version of its runtime
runs (stamped on results and compared between a cluster's machines) and how to read its
host's dying words. Everything above harness/agents/lang treats agents alike.
"""
from __future__ import annotations

import _thread
from abc import ABC, abstractmethod
from dataclasses import dataclass

from harness.core.errors import LoadError

# A host's zygote imports the languages (harness/isolation/host.py): neither typing nor
# pathlib, which only annotate here, is imported, so that every game's fork copies less
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import ClassVar

_PLAIN_PAIRS = {(m, t): (m, t) for m in "CD" for t in "CD"}


def plain_pair(mine: str, theirs: str):
    """Python agents see each move pair as a tuple of the strings "C"/"D" (shared, immutable)."""
    return _PLAIN_PAIRS[mine, theirs]


@dataclass(frozen=True)
class CanRun:
    """Whether a language's runtime is here; if not, `reason` is one line naming the fix."""

    yes: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.yes


def last_line(output: str) -> str | None:
    """The last line a process wrote that is not blank (a Python traceback's ends in the
    exception), or None."""
    said = [line for line in output.strip().splitlines() if line.strip()]
    return said[-1] if said else None


_versions: dict[str, str] = {}   # a language's runtime version, found once per process
# `_thread`'s lock, not `threading`'s: a host's zygote imports this module, and importing
# `threading` registers an at-fork hook that costs every game's process ~130 page faults
# (0.35 ms) before its first line (benchmarks/game_process_cost.py, "fork")
_versions_lock = _thread.allocate_lock()


class Language(ABC):
    name: ClassVar[str]                  # as records, JSON and hints name it: "python"
    suffixes: ClassVar[tuple[str, ...]]  # the files it claims; the first is what `new` writes
    new_choice: ClassVar[str]            # `pdharness new --lang CHOICE`
    # suffixes students use by mistake for this language's files (KhosmoodLevinson.lsp)
    near_misses: ClassVar[tuple[str, ...]] = ()
    runs_in_monitor: ClassVar[bool] = True   # can a file load in the monitor's process?
    static_read_limit: ClassVar[int] = 1 << 20   # largest file read by `definitions`
    utf8_only: ClassVar[bool] = True     # else a file that is not UTF-8 is read, with a warning
    # every definition is global to all agents of the language (one Lisp image): the
    # names a file defines must start with the agent's name
    shares_one_image: ClassVar[bool] = False
    hints: ClassVar[dict[str, str]] = {}  # problem code -> this language's fix hint
    # its host reads the harness cache (compiled code): a root monitor checks that an
    # agent's own user can (harness/isolation/root_read.py, keeps_read)
    reads_cache: ClassVar[bool] = False
    # its agents import Python modules (served by harness/isolation/host.py): the declared
    # agent packages apply to them (harness/agents/agent_environment.py)
    imports_python: ClassVar[bool] = True

    # -- running ---------------------------------------------------------------------------
    def load(self, path: Path, name: str):
        """factory(rng, moves_per_turn) -> the agent's function, loaded in this process."""
        raise LoadError(f"{path}: {self.name} agents cannot run inside the monitor")

    def pairs(self):
        """() -> (mine, theirs) -> the object put in the agent's hist for a played pair."""
        return plain_pair

    @abstractmethod
    def host_command(self, source: str, name: str, memory: int | None) -> list[str]:
        """The argv of a host process serving agent NAME of SOURCE over the line protocol
        (docs/DESIGN.md), fit to run under MEMORY bytes of address space."""

    def sandbox_roots(self) -> list[str]:
        """Host folders and files the sandbox must show (read-only) for this language's
        host to run, besides the interpreter and the harness every host sees."""
        return []

    # -- this machine ------------------------------------------------------------------------
    runtime_name: ClassVar[str]          # the program that runs its agents, in messages: "SBCL"
    # what a machine must install for the language (Debian packages: the autograder's image)
    system_packages: ClassVar[tuple[str, ...]] = ()

    def can_run(self) -> CanRun:
        """Whether this machine has the language's runtime (checked each time: cheap)."""
        return CanRun(True)

    def runtime_version(self) -> str | None:
        """The runtime that plays the language's agents here ("SBCL 2.2.9.debian"), found
        once per process; None when it cannot run here."""
        with _versions_lock:
            known = _versions.get(self.name)
        if known is None:
            if not self.can_run():
                return None
            known = self.find_runtime_version()
            with _versions_lock:
                _versions[self.name] = known
        return known

    @abstractmethod
    def find_runtime_version(self) -> str:
        """The runtime's name and version, asked of the runtime itself."""

    def host_environment(self) -> dict[str, str]:
        """Variables of the monitor's environment the language's host needs besides those
        every host gets (harness/agents/lang/python_process.py's host_environment)."""
        return {}

    def last_words(self, output: str) -> str | None:
        """What the tail of a dead host's output says about why it died (one line), or
        None: by default its last line."""
        return last_line(output)

    # -- the Python host (for languages it serves) --------------------------------------------
    def preload_in_host(self, path: str) -> None:
        """Import, in a host's zygote, what every game's child would otherwise import."""
        return None

    def checked_code(self, path: Path, name: str):
        """The code object of an agent file that compiles and loads (runs agent code)."""
        raise NotImplementedError(f"{self.name} agents are not served by the Python host")

    # -- reading without running --------------------------------------------------------------
    def fold_name(self, name: str) -> str:
        """A name as the language's reader folds it, for comparing names (Lisp upcases)."""
        return name

    @abstractmethod
    def definitions(self, source: str, path: Path):
        """What SOURCE defines (harness.agents.lang.definitions.Definitions), read without running
        any of it; Unreadable or NotReadHere otherwise."""

    # -- wording ------------------------------------------------------------------------------
    @abstractmethod
    def quote_call(self, name: str, hist: str, score: tuple[int, int]) -> str:
        """The call as the language writes it, HIST already written by `quote_pair`s."""

    def quote_pair(self, mine: str, theirs: str) -> str:
        return f"({mine} {theirs})"

    pair_separator: ClassVar[str] = " "

    def template(self) -> str:
        """The text `pdharness new` fills in ({name}, {team})."""
        from importlib import resources  # the host's image stays lean

        return (resources.files("harness") / "templates" / f"agent.{self.new_choice}.txt"
                ).read_text(encoding="utf-8")

    # -- what agents of the language give the harness -----------------------------------------
    lisp_syntax = False   # its agents' values are quoted back in Lisp syntax (Hy's)

    def describe_value(self, value) -> str | None:
        """How a value only this language makes prints in a message; None if not one."""
        return None

    def spelled_move(self, item) -> str | None:
        """The move ("C"/"D") a value only this language makes spells; None if not one."""
        return None

    def defined_function(self, function) -> bool:
        """Whether a function handed to the API was written in this language."""
        return False

    def plain_data(self, value):
        """VALUE, passed to the API by a caller written in this language, as Python data."""
        return value

    def present(self, result_type) -> None:
        """Make values of RESULT_TYPE print as this language's callers expect."""
        return None
