"""From an AgentSpec and an isolation mode to a ready handle (or LoadError)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.agents.specs import AgentSpec, Kind

from ..limits import DEFAULT_MEMORY
from .agent_handle import PollableHandle


@dataclass(frozen=True)
class Isolation:
    """How agents run: `sandbox` (own process inside bubblewrap), `process` (own process)
    or `none` (inside the monitor)."""

    mode: str = "sandbox"
    timeout: float = 1.0          # seconds per call: the one time limit, enforced and recorded
    memory_limit: int = DEFAULT_MEMORY   # bytes of address space for an agent's process

    def __post_init__(self):
        from harness.core.errors import ParameterError

        if not self.timeout > 0:
            raise ParameterError(f"timeout {self.timeout} must be positive")


def open_handle(spec: AgentSpec, isolation: Isolation) -> PollableHandle:
    """A handle for the agent: a callable or (in `none` mode) a built-in or a file its
    language loads in the monitor runs here; anything else in a host process of its own."""
    kind = spec.kind
    if kind is Kind.CALLABLE:
        from harness.agents.lang import language_of_function

        return _in_monitor(spec.name, lambda rng, per_turn: spec.function,
                           language_of_function(spec.function).pairs(), isolation)
    if kind is Kind.REPL:   # a function of the student's REPL, served by it
        from .repl import open_repl_handle

        return open_repl_handle(spec, isolation)
    if kind is Kind.LLM:   # trusted code of ours that needs the network: the monitor
        from harness.isolation.handles.llm import LlmHandle

        return LlmHandle(spec.name, spec.llm)
    if kind is Kind.UNKNOWN:
        from harness.core.errors import LoadError

        raise LoadError(f"no language or kind of agent is called {spec.language!r}")
    if spec.is_bundle:   # read into its snapshot under the limits, or refused (LoadError)
        spec.bundle()
    elif spec.path is not None:  # no link, FIFO, device or huge file, in every mode alike
        from harness.agents.agent_files import check_agent_file

        check_agent_file(spec.path)
    if kind.strategy:
        if isolation.mode == "none":
            from harness.agents.strategy_keys import strategy_for

            from .inprocess import BuiltinHandle

            return BuiltinHandle(spec.name, strategy_for(_entry(spec)))
        return _in_process_of_its_own(spec, _builtin_host_command(spec), isolation)
    language = spec.file_language
    assert language is not None   # kind FILE: one of the registry's languages
    runnable = language.can_run()
    if not runnable:   # its runtime is missing here: one line naming the fix
        from harness.core.errors import LoadError

        raise LoadError(runnable.reason)
    # a bundle's agent has a folder of its own (its current folder, its import path):
    # under `none` too it runs in a process, as under `process`
    if isolation.mode == "none" and language.runs_in_monitor and not spec.is_bundle:
        from harness.agents.agent_files import hand_over

        from .inprocess import InProcessHandle, Printed

        hand_over(spec.source, spec.content())  # the bytes the run plays (AgentSpec.content)
        printed = Printed()   # what it prints while it loads, too
        factory = printed.run(language.load, Path(spec.source), spec.entry)
        return InProcessHandle(spec.name, factory, language.pairs(), isolation.timeout,
                               printed)
    argv = language.host_command(spec.agent_file, spec.entry, isolation.memory_limit)
    return _in_process_of_its_own(spec, argv, isolation)


def _entry(spec) -> str:
    """What a built-in's host looks up: its name or strategy table's key."""
    from harness.agents.strategy_specs import strategy_key

    return strategy_key(spec)


def _builtin_host_command(spec) -> list[str]:
    from harness.agents.lang.python_process import python_host_command

    return python_host_command(Kind.BUILTIN.spelling, Kind.BUILTIN.spelling, _entry(spec))


def _in_monitor(name, factory, pairs, isolation) -> PollableHandle:
    from .inprocess import InProcessHandle

    return InProcessHandle(name, factory, pairs, isolation.timeout)


def _in_process_of_its_own(spec, argv, isolation) -> PollableHandle:
    from harness.agents.lang.python_process import host_environment
    from harness.core.errors import LoadError

    from .process import ProcessHandle

    language = spec.runs_on   # what its host needs from the environment, how its crash reads
    assert language is not None
    try:
        return ProcessHandle(spec.name, argv,
                             {**host_environment(""), **language.host_environment(),
                              **_folder_environment(spec)},
                             isolation.timeout, wrap=_launcher(spec, isolation),
                             last_words=language.last_words)
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
    from harness.agents.agent_files import AGENT_FOLDER

    return {AGENT_FOLDER: spec.bundle().folder}


def _launcher(spec, isolation):
    """(argv, env) -> how each of the agent's processes starts: inside the sandbox, or as a
    plain process (`process` mode, or no sandbox here), always with resource limits."""
    from ..sandbox import launcher

    return launcher(spec, isolation)
