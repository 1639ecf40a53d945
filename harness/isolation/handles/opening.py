"""From an AgentSpec and an isolation mode to a ready handle (or LoadError)."""
from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path

from harness.agents.agent_files import AGENT_FOLDER, check_agent_file, hand_over
from harness.agents.agent_imports import PREIMPORT, declare_in_monitor
from harness.agents.axelrod_strategies import class_name
from harness.agents.lang import LANGUAGES, language_of_function
from harness.agents.lang.python_process import host_environment, python_host_command
from harness.agents.specs import AgentSpec, Kind
from harness.agents.strategy_keys import strategy_for
from harness.agents.strategy_specs import strategy_key
from harness.core.errors import LoadError
from harness.isolation.handles.llm import LlmHandle

from ..sandbox import launcher
from ..world import mounts_environment
from .agent_handle import PollableHandle
from .axelrod_agent import AxelrodHandle
from .inprocess import BuiltinHandle, InProcessHandle, Printed
from .isolation_settings import Isolation
from .process import ProcessHandle, load_too_long
from .repl import open_repl_handle


def open_handle(spec: AgentSpec, isolation: Isolation) -> PollableHandle:
    """A handle for the agent: a callable or (in `none` mode) a built-in or a file its
    language loads in the monitor runs here; anything else in a host process of its own."""
    kind = spec.kind
    if kind is Kind.CALLABLE:
        return _in_monitor(spec.name, lambda rng, per_turn: spec.function,
                           language_of_function(spec.function).pairs(), isolation)
    if kind is Kind.REPL:   # a function of the student's REPL, served by it
        return open_repl_handle(spec, isolation)
    if kind is Kind.LLM:   # trusted code of ours that needs the network: the monitor
        return LlmHandle(spec.name, spec.llm)
    if kind is Kind.AXELROD:   # trusted library code: the run's one Axelrod host plays it
        return AxelrodHandle(spec.name, class_name(spec.source))
    if kind is Kind.UNKNOWN:
        raise LoadError(f"no language or kind of agent is called {spec.language!r}")
    if spec.is_bundle:   # read into its snapshot under the limits, or refused (LoadError)
        spec.bundle()
    elif spec.path is not None:  # no link, FIFO, device or huge file, in every mode alike
        check_agent_file(spec.path)
    if kind.strategy:
        if isolation.mode == "none":
            return BuiltinHandle(spec.name, strategy_for(_entry(spec)))
        return _in_process_of_its_own(spec, _builtin_host_command(spec), isolation)
    language = spec.file_language
    assert language is not None   # kind FILE: one of the registry's languages
    runnable = language.can_run()
    if not runnable:   # its runtime is missing here: one line naming the fix
        raise LoadError(runnable.reason)
    # a bundle's agent has a folder of its own (its current folder, its import path):
    # under `none` too it runs in a process, as under `process`
    if isolation.mode == "none" and language.runs_in_monitor and not spec.is_bundle:
        _declare_in_monitor(isolation)
        hand_over(spec.source, spec.content())  # the bytes the run plays (AgentSpec.content)
        printed = Printed()   # what it prints while it loads, too
        factory = _timed_load(printed, language, spec, isolation.load_timeout)
        return InProcessHandle(spec.name, factory, language.pairs(), isolation.timeout,
                               printed)
    argv = language.host_command(spec.agent_file, spec.entry, isolation.memory_limit)
    return _in_process_of_its_own(spec, argv, isolation)


def _declare_in_monitor(isolation) -> None:
    """`none`: the agents' own imports are held to the declaration (trusted code: see
    harness/agents/agent_imports.py)."""
    resolved = isolation.environment()
    declare_in_monitor(resolved.modules, resolved.undeclared)


def _timed_load(printed, language, spec, limit: float):
    """The agent loaded in the monitor (`none`): nothing here can stop it, so a load past
    the limit is a load error once it returns, as a host's would have been."""
    started = time.monotonic()
    factory = printed.run(language.load, Path(spec.source), spec.entry)
    took = time.monotonic() - started
    if took > limit:
        raise LoadError(load_too_long(took, limit, stopped=False))
    return factory


def _preimports(spec, resolved) -> str:
    """The declared modules the agent's file imports at its top level (read, not run)."""
    language = spec.file_language
    if language is None or not resolved.modules:
        return ""
    return _declared_imports(language.name, spec.source, spec.content(),
                             frozenset(resolved.modules))


@lru_cache(maxsize=256)
def _declared_imports(language_name: str, source: str, content: bytes, modules) -> str:
    """Read once per file's bytes (Hy's reader takes ~0.1 s a KiB, and a host may be
    opened many times a run); a file that names none of the modules is not read."""
    if len(content) > LANGUAGES[language_name].static_read_limit:
        return ""   # a reader's bound (Hy's is slow): its host imports them in each game
    text = content.decode("utf-8", "replace")
    if not any(module in text or module.replace("_", "-") in text for module in modules):
        return ""
    try:
        imports = LANGUAGES[language_name].definitions(text, Path(source)).imports
    except Exception:   # unreadable: the load says why
        return ""
    return " ".join(dict.fromkeys(name for name in imports
                                  if name.partition(".")[0] in modules))


def _entry(spec) -> str:
    """What a built-in's host looks up: its name or strategy table's key."""
    return strategy_key(spec)


def _builtin_host_command(spec) -> list[str]:
    return python_host_command(Kind.BUILTIN.spelling, Kind.BUILTIN.spelling, _entry(spec))


def _in_monitor(name, factory, pairs, isolation) -> PollableHandle:
    return InProcessHandle(name, factory, pairs, isolation.timeout)


def _in_process_of_its_own(spec, argv, isolation) -> PollableHandle:
    language = spec.runs_on   # what its host needs from the environment, how its crash reads
    assert language is not None
    env = {**host_environment(""), **language.host_environment(), **_folder_environment(spec),
           **mounts_environment()}   # what a host that cannot import world.py mounts
    if language.imports_python:   # what its agents may import, and what its host imports
        resolved = isolation.environment()
        env.update(resolved.host_variables(), **{PREIMPORT: _preimports(spec, resolved)})
    try:
        return ProcessHandle(spec.name, argv, env, isolation.timeout,
                             wrap=_launcher(spec, isolation), last_words=language.last_words,
                             # a built-in's host loads nothing: its GAME has no answer
                             load_timeout=None if spec.kind.strategy else isolation.load_timeout,
                             shown=spec.bundle().shown if spec.is_bundle else None)
    except LoadError as error:
        if spec.is_bundle:   # named as given, not as its private snapshot
            raise LoadError(spec.bundle().shown(str(error))) from None
        raise


def _folder_environment(spec) -> dict[str, str]:
    """A bundle's agent is told its folder (its snapshot): the host makes it the agent's
    current folder and puts it first on its import path (harness/agents/agent_files.py,
    AGENT_FOLDER)."""
    if not spec.is_bundle:
        return {}
    return {AGENT_FOLDER: spec.bundle().folder}


def _launcher(spec, isolation):
    """(argv, env) -> how each of the agent's processes starts: inside the sandbox, or as a
    plain process (`process` mode, or no sandbox here), always with resource limits."""
    return launcher(spec, isolation)
