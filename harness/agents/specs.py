"""Which agents take part: built-in names, agent files and folders of them.

An `AgentSpec` says where an agent comes from; `open_handle` turns it into the handle a
game talks to, in the isolation mode asked for.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from harness.core.errors import AgentNotFound, HarnessError

ISOLATION_MODES = ("sandbox", "process", "none")


@dataclass(frozen=True)
class AgentSpec:
    name: str
    # a language of harness.agents.lang's registry for an agent file; else the agent's kind,
    # "builtin" or "callable" (as records and JSON write it)
    language: str
    source: str                   # a path, "builtin" or "callable"
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

            self._content.append(read_agent_file(self.source))
        return self._content[0]

    def sha256(self) -> str | None:
        """The SHA-256 of `content` (of the model file for a Q-table agent); None if it
        cannot be read."""
        import hashlib

        from harness.core.errors import LoadError

        if not self.is_file:
            from .agent_files import file_hash

            return file_hash(self.path) if self.path is not None else None
        try:
            return hashlib.sha256(self.content()).hexdigest()
        except LoadError:
            return None

    @property
    def is_file(self) -> bool:
        """An agent file, in one of the languages; not a built-in or a callable."""
        from .lang import LANGUAGES

        return self.language in LANGUAGES

    @property
    def path(self) -> Path | None:
        """The agent's file (or a Q-table agent's model file)."""
        if self.is_file:
            return Path(self.source)
        from .strategy_specs import model_path

        return model_path(self.source)

    @property
    def entry(self) -> str:
        """The name the agent's file defines, which a population's copies (`type#1`, ...)
        do not carry in their own names."""
        if self.defines:
            return self.defines
        return Path(self.source).stem if self.is_file else self.name


def bundled_agents_dir() -> Path:
    import student_agents

    return Path(student_agents.__file__).resolve().parent


def builtin_spec(name: str) -> AgentSpec:
    return AgentSpec(name, "builtin", "builtin")


def defined_spec(path: Path, defines: str | None) -> AgentSpec:
    """The agent file at `path` playing the function it defines (`defines`, when that is
    not the file's own name), named after that function."""
    from dataclasses import replace

    spec = file_spec(path)
    if not defines or defines == spec.name:
        return spec
    return replace(spec, name=defines, defines=defines)


def strategy_spec(argument: str, name: str | None = None,
                  base: Path | None = None) -> AgentSpec:
    """The AgentSpec of `memory:...` or `qtable:PATH` (PATH relative to `base` when given),
    checked now so a bad vector or model is one clear line before anything runs."""
    from .memory_agents import MEMORY_PREFIX, parse_memory
    from .qtable import load_model
    from .strategy_specs import QTABLE_PREFIX

    if argument.startswith(MEMORY_PREFIX):
        parse_memory(argument)
        return AgentSpec(name or argument, "builtin", argument)
    path = Path(argument[len(QTABLE_PREFIX):])
    if base is not None and not path.is_absolute():
        path = base / path
    load_model(path)
    return AgentSpec(name or argument, "builtin", QTABLE_PREFIX + str(path))


def llm_spec(argument: str, declarations: dict | None = None,
             name: str | None = None) -> AgentSpec:
    """The AgentSpec of `llm:NAME`, NAME looked up in `declarations` (a population's or
    experiment's own, over the course file's)."""
    from harness.agents.llm.config import declared_config

    config = declared_config(argument, declarations)
    return AgentSpec(name or argument, "llm", argument, llm=config)


def file_spec(path: Path) -> AgentSpec:
    from .lang import BY_SUFFIX, listed_suffixes

    language = BY_SUFFIX.get(path.suffix)
    if language is None:
        raise AgentNotFound(f"{path}: not an agent file (expected {listed_suffixes()})")
    return AgentSpec(path.stem, language.name, str(path))


def is_agent_file(path: Path) -> bool:
    """Named like an agent and not a folder. Links, FIFOs and devices count too, so that
    loading refuses them with a load error that says why (never a silent skip)."""
    from .lang import BY_SUFFIX

    return (path.suffix in BY_SUFFIX and not path.name.startswith(("_", "."))
            and _lexists(path) and not path.is_dir())


def _lexists(path: Path) -> bool:
    try:
        os.lstat(path)
        return True
    except OSError:
        return False


def folder_specs(folder: Path) -> list[AgentSpec]:
    return [file_spec(path) for path in sorted(folder.iterdir()) if is_agent_file(path)]


def find_builtin(name: str) -> str | None:
    from .builtins import BUILTINS

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
    path = Path(argument)
    if path.is_dir():
        specs = folder_specs(path)
        if not specs:
            from .lang import listed_suffixes

            raise AgentNotFound(f"{path}: folder holds no agent files ({listed_suffixes('')})")
        return specs
    from .lang import BY_SUFFIX

    if path.is_file() or (path.exists() and path.suffix in BY_SUFFIX):
        return [file_spec(path)]  # not a regular file (a FIFO...): a load error says so
    builtin = find_builtin(argument)
    if builtin:
        return [builtin_spec(builtin)]
    for folder in search:
        for candidate in folder_specs(folder) if folder.is_dir() else []:
            if candidate.name.lower() == argument.lower():
                return [candidate]
    from .wording import unknown_agent

    raise AgentNotFound(unknown_agent(argument, search))


def resolve(arguments, search: Sequence[Path] = ()) -> list[AgentSpec]:
    specs = [spec for argument in arguments for spec in resolve_one(argument, search)]
    check_unique(specs)
    return specs


def check_unique(specs: list[AgentSpec]) -> None:
    from .wording import same_name

    seen: dict[str, list[AgentSpec]] = {}
    for spec in specs:
        seen.setdefault(spec.name.lower(), []).append(spec)
    for same in seen.values():
        if len(same) > 1:
            raise HarnessError(same_name(same[0].name, [spec.source for spec in same]))


def callable_spec(function: Callable, name: str | None = None) -> AgentSpec:
    return AgentSpec(name or function.__name__, "callable", "callable", function)
