"""Which agents take part: built-in names, agent files and folders of them.

An `AgentSpec` says where an agent comes from; `open_handle` turns it into the handle a
game talks to, in the isolation mode asked for.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from harness.core.errors import AgentNotFound, HarnessError, LoadError
from harness.core.seeds import canonical_name

from .builtins import BUILTINS
from .bundles import bundle_language, bundle_name, given_name, is_bundle, open_bundle
from .lang import BY_SUFFIX, LANGUAGES, PYTHON, listed_suffixes
from .memory_agents import MEMORY_PREFIX, parse_memory

# imports inside functions here are deferred (`pdharness` starts light)

if TYPE_CHECKING:
    from .lang.language import Language

ISOLATION_MODES = ("sandbox", "process", "none")


class Kind(Enum):
    """What an agent is: the one axis every decision about where an agent comes from asks
    (`AgentSpec.kind`), instead of matching the spellings the record keeps.

    Records and JSON keep their spelling in the agent's `language`: a file's language name
    ("python", "hy", "lisp"), or `spelling` below ("builtin" for a built-in and for the
    strategies `memory:`/`qtable:`, whose source tells them apart)."""

    FILE = "file"           # an agent file in one of harness.agents.lang's languages
    BUILTIN = "builtin"     # a built-in strategy by name (or a population's copy of one)
    MEMORY = "memory"       # memory:BITS, a Memory-N strategy vector (memory_agents.py)
    QTABLE = "qtable"       # qtable:MODEL.json, a trained Q-table (qtable.py)
    CALLABLE = "callable"   # a Python function handed to the API: runs in the monitor
    LLM = "llm"             # llm:NAME, a language model (harness/agents/llm)
    REPL = "repl"           # a function of a student's SBCL REPL, served by it
    AXELROD = "axelrod"     # axelrod:NAME, a strategy of the Axelrod library (axelrod_strategies.py)
    UNKNOWN = "unknown"     # a spelling this pdharness does not know (an edited record)

    @property
    def spelling(self) -> str:
        """How records and JSON write this kind (a file's is its language's name)."""
        if self in (Kind.FILE, Kind.UNKNOWN):
            raise ValueError(f"agents of kind {self.value} are spelled by their language")
        return "builtin" if self.strategy else self.value

    @property
    def strategy(self) -> bool:
        """Trusted code of ours, served as a built-in is: in the monitor for `none`, in a
        Python host otherwise."""
        return self in (Kind.BUILTIN, Kind.MEMORY, Kind.QTABLE)

    @classmethod
    def of(cls, language: str, source: str) -> "Kind":
        """The kind of an agent recorded with LANGUAGE and SOURCE (its spelling)."""
        from .strategy_specs import MEMORY_PREFIX, QTABLE_PREFIX

        if language in LANGUAGES:
            return cls.FILE
        if language == "builtin":
            if source.startswith(MEMORY_PREFIX):
                return cls.MEMORY
            return cls.QTABLE if source.startswith(QTABLE_PREFIX) else cls.BUILTIN
        try:
            kind = cls(language)
        except ValueError:
            return cls.UNKNOWN
        return cls.UNKNOWN if kind is cls.FILE or kind.strategy else kind


@dataclass(frozen=True)
class AgentSpec:
    name: str
    # as records and JSON write it: a language of harness.agents.lang's registry for an
    # agent file, else its kind's spelling (Kind.spelling); decide by `kind`, not by this
    language: str
    source: str                   # a path, a built-in's name, memory:..., qtable:..., llm:...
    function: Callable | None = field(default=None, compare=False, repr=False)
    llm: Any = field(default=None, compare=False, repr=False)   # an llm: agent's LlmConfig
    # the function an agent file defines, where it is not named after the file (validate
    # and the autograder play a misnamed upload by what it defines)
    defines: str | None = field(default=None, compare=False)
    # the file's bytes once read (`content`): a cell, so the frozen spec can fill it
    _content: list = field(default_factory=list, compare=False, repr=False)

    def content(self) -> bytes:
        """The agent file's bytes as this run plays them: read once (the checks of
        harness/agents/agent_files.py; LoadError if it cannot be), then the same bytes for every
        process that loads the agent, a replaced one too, and for the record's SHA-256."""
        if not self._content:
            from .agent_files import read_agent_file

            self._content.append(read_agent_file(self.agent_file))
        return self._content[0]

    @property
    def is_bundle(self) -> bool:
        """An agent file that came in a bundle (harness/agents/bundles.py): a folder or a
        zip named after it, its source; what it plays is the bundle's snapshot."""
        if not self.is_file:
            return False

        return os.path.splitext(self.source)[1] not in BY_SUFFIX

    def bundle(self):
        """The bundle as the run plays it (read once into a snapshot); LoadError if it is
        refused. Only for `is_bundle`."""
        return open_bundle(self.source)

    @property
    def agent_file(self) -> str:
        """The file a host loads: the source, or the agent's file in its bundle's snapshot
        (LoadError if the bundle is refused)."""
        return self.bundle().agent_file if self.is_bundle else self.source

    def sha256(self) -> str | None:
        """The SHA-256 of `content` (of the model file for a Q-table agent); None if it
        cannot be read."""
        if not self.is_file:
            from .agent_files import file_hash

            return file_hash(self.path) if self.path is not None else None
        try:
            if self.is_bundle:   # of every file it holds (bundles.digest_of)
                return self.bundle().digest
            return hashlib.sha256(self.content()).hexdigest()
        except LoadError:
            return None

    @property
    def kind(self) -> Kind:
        return Kind.of(self.language, self.source)

    @property
    def is_file(self) -> bool:
        """An agent file, in one of the languages; not a built-in or a callable."""
        return self.kind is Kind.FILE

    @property
    def file_language(self) -> "Language | None":
        """The language of an agent file; None for every other kind."""
        return LANGUAGES.get(self.language)

    @property
    def runs_on(self) -> "Language | None":
        """The language whose runtime plays the agent: a file's own; Python for our
        strategies and for functions handed to the API; None for agents served from
        elsewhere (a language model, a student's REPL)."""
        kind = self.kind
        if kind is Kind.FILE:
            return self.file_language
        if kind.strategy or kind is Kind.CALLABLE:
            return PYTHON
        return None

    @property
    def path(self) -> Path | None:
        """The agent's file (or a Q-table agent's model file)."""
        kind = self.kind
        if kind is Kind.FILE:
            return Path(self.source)
        if kind is Kind.QTABLE:
            from .strategy_specs import model_path

            return model_path(self.source)
        return None

    @property
    def entry(self) -> str:
        """The name the agent's file defines, which a population's copies (`type#1`, ...)
        do not carry in their own names."""
        if self.defines:
            return self.defines
        return Path(self.source).stem if self.is_file else self.name


def runtime_versions(specs) -> dict[str, str | None]:
    """{language name: its runtime's version here} for every language whose runtime plays
    one of SPECS' agents, in the registry's order; None for a runtime missing here. Stamped
    on results (the record, the JSON) and compared between a cluster's machines."""
    playing = {language.name for language in (spec.runs_on for spec in specs) if language}
    return {name: language.runtime_version() for name, language in LANGUAGES.items()
            if name in playing}


def bundled_agents_dir() -> Path:
    import student_agents

    return Path(student_agents.__file__).resolve().parent


def builtin_spec(name: str) -> AgentSpec:
    return AgentSpec(name, Kind.BUILTIN.spelling, Kind.BUILTIN.spelling)


def defined_spec(path: Path, defines: str | None) -> AgentSpec:
    """The agent file at `path` playing the function it defines (`defines`, when that is
    not the file's own name), named after that function."""
    spec = file_spec(path)
    if not defines or defines == spec.name:
        return spec
    return replace(spec, name=defines, defines=defines)


def strategy_spec(argument: str, name: str | None = None,
                  base: Path | None = None) -> AgentSpec:
    """The AgentSpec of `memory:...` or `qtable:PATH` (PATH relative to `base` when given),
    checked now so a bad vector or model is one clear line before anything runs."""
    from .qtable import load_model
    from .strategy_specs import QTABLE_PREFIX

    if argument.startswith(MEMORY_PREFIX):
        parse_memory(argument)
        return AgentSpec(name or argument, Kind.MEMORY.spelling, argument)
    path = Path(argument[len(QTABLE_PREFIX):])
    if base is not None and not path.is_absolute():
        path = base / path
    load_model(path)
    return AgentSpec(name or argument, Kind.QTABLE.spelling, QTABLE_PREFIX + str(path))


def llm_spec(argument: str, declarations: dict | None = None,
             name: str | None = None) -> AgentSpec:
    """The AgentSpec of `llm:NAME`, NAME looked up in `declarations` (a population's or
    experiment's own, over the course file's)."""
    from harness.agents.llm.config import declared_config

    config = declared_config(argument, declarations)
    return AgentSpec(name or argument, Kind.LLM.spelling, argument, llm=config)


def axelrod_spec(argument: str, name: str | None = None) -> AgentSpec:
    """The AgentSpec of `axelrod:NAME`, checked now (an unknown, cheating or, unless
    allowed, long-running strategy is one clear line before anything runs)."""
    from .axelrod_strategies import axelrod_strategy

    strategy = axelrod_strategy(argument)
    return AgentSpec(name or strategy.spec, Kind.AXELROD.spelling, strategy.spec)


def file_spec(path: Path) -> AgentSpec:
    if is_bundle(path):   # a renamed one (`JonesSmith (1).zip`) plays the agent it holds
        name = bundle_name(path)
        return AgentSpec(name, bundle_language(path), str(path),
                         defines=name if name != given_name(path) else None)
    language = BY_SUFFIX.get(path.suffix)
    if language is None:
        raise AgentNotFound(f"{path}: not an agent file (expected {listed_suffixes()})")
    from .uploaded_names import played_as

    defines = played_as(path, language)   # `JonesSmith (1).py`, as an LMS renames uploads
    if defines is not None:
        return AgentSpec(defines, language.name, str(path), defines=defines)
    return AgentSpec(path.stem, language.name, str(path))


def is_agent_file(path: Path) -> bool:
    """Named like an agent and not a folder. Links, FIFOs and devices count too, so that
    loading refuses them with a load error that says why (never a silent skip)."""
    return (path.suffix in BY_SUFFIX and not path.name.startswith(("_", "."))
            and _lexists(path) and not path.is_dir())


def _lexists(path: Path) -> bool:
    try:
        os.lstat(path)
        return True
    except OSError:
        return False


def folder_specs(folder: Path) -> list[AgentSpec]:
    """The submissions in a folder: agent files and bundles (folders and zips named after
    their agent, harness/agents/bundles.py)."""
    return [file_spec(path) for path in sorted(folder.iterdir())
            if is_agent_file(path) or (not path.name.startswith(("_", ".")) and is_bundle(path))]


def _subfolders_hint(folder: Path) -> str:
    """For a folder of team folders (an LMS download): name them, the shell can."""
    try:
        deeper = any(sub.is_dir() and not sub.name.startswith((".", "_")) and folder_specs(sub)
                     for sub in folder.iterdir())
    except OSError:
        return ""
    return (f"; its subfolders hold some: name them, e.g. {folder.as_posix().rstrip('/')}/*/"
            if deeper else "")


def find_builtin(name: str) -> str | None:
    lowered = name.lower()
    return lowered if lowered in BUILTINS else None


def resolve_one(argument: str, search: Sequence[Path] = ()) -> list[AgentSpec]:
    """AGENT as the command line takes it: a file, a folder, a built-in or an agent name
    found in one of the `search` folders."""
    from .strategy_specs import is_strategy

    if is_strategy(argument):
        return [strategy_spec(argument)]
    if argument.startswith("llm:"):
        return [llm_spec(argument)]
    from .axelrod_strategies import is_axelrod

    if is_axelrod(argument):
        return [axelrod_spec(argument)]
    path = Path(argument)

    if is_bundle(path):
        return [file_spec(path)]
    if path.is_dir():
        specs = folder_specs(path)
        if not specs:
            raise AgentNotFound(f"{path}: folder holds no agent files ({listed_suffixes('')})"
                                f"{_subfolders_hint(path)}")
        return specs

    if path.is_file() or (path.exists() and path.suffix in BY_SUFFIX):
        return [file_spec(path)]  # not a regular file (a FIFO...): a load error says so
    builtin = find_builtin(argument)
    if builtin:
        return [builtin_spec(builtin)]
    for folder in (Path("."), *search):   # a bare name: the current folder's file first
        found = _named_in(folder, argument)
        if found is not None:
            return [found]
    from .wording import unknown_agent

    raise AgentNotFound(unknown_agent(argument, search))


def _named_in(folder: Path, name: str) -> AgentSpec | None:
    """The agent file or bundle of FOLDER that plays as the agent NAME (any case): the one
    named after it, else one an LMS renamed (read only when its name carries NAME)."""
    from .uploaded_names import decorated

    try:
        paths = sorted(folder.iterdir()) if folder.is_dir() else []
    except OSError:
        return None
    wanted = canonical_name(name)
    bundles = [path for path in paths
               if not path.name.startswith(("_", ".")) and is_bundle(path)]
    named = [path for path in bundles if canonical_name(bundle_name(path)) == wanted]
    files = [path for path in paths if is_agent_file(path)]
    named += [path for path in files if canonical_name(path.stem) == wanted]
    renamed = [path for path in files if path not in named
               and decorated(canonical_name(path.stem), wanted)]
    if len(named) > 1:   # the same agent in two languages: which one is the user's to say
        from .wording import several_files

        raise AgentNotFound(several_files(name, named))
    for path in named + renamed:
        spec = file_spec(path)
        if canonical_name(spec.name) == wanted:
            return spec
    return None


def resolve(arguments, search: Sequence[Path] = (), found: list[str] | None = None
            ) -> list[AgentSpec]:
    """Every AGENT argument's agents (resolve_one), their names checked unique. `found`
    collects one note per bare name played from a file (which file that is)."""
    from .wording import found_by_name

    specs = []
    for argument in arguments:
        these = resolve_one(argument, search)
        if found is not None:
            found += [note for spec in these if (note := found_by_name(argument, spec))]
        specs += these
    check_unique(specs)
    return specs


def check_unique(specs: list[AgentSpec]) -> None:
    from .wording import same_name

    seen: dict[str, list[AgentSpec]] = {}
    for spec in specs:   # one agent whatever its case: seeds follow the canonical spelling
        seen.setdefault(canonical_name(spec.name), []).append(spec)
    for same in seen.values():
        if len(same) > 1:
            raise HarnessError(same_name(same[0].name, [spec.source for spec in same]))


def callable_spec(function: Callable, name: str | None = None) -> AgentSpec:
    return AgentSpec(name or function.__name__, Kind.CALLABLE.spelling, Kind.CALLABLE.spelling,
                     function)
