"""From an AgentSpec and an isolation mode to a ready handle (or LoadError)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.agents.specs import AgentSpec

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
    if spec.language == "callable":
        from harness.agents.lang import language_of_function

        language = language_of_function(spec.function)
        return _in_monitor(spec.name, lambda rng, per_turn: spec.function, language.pairs(),
                           isolation)
    if spec.language == "repl":   # a function of the student's SBCL REPL, served by it
        from .repl import open_repl_handle

        return open_repl_handle(spec, isolation)
    if spec.language == "llm":   # trusted code of ours that needs the network: the monitor
        from harness.isolation.handles.llm import LlmHandle

        return LlmHandle(spec.name, spec.llm)
    if spec.path is not None:  # no link, FIFO, device or huge file, in every mode alike
        from harness.agents.agent_files import check_agent_file

        check_agent_file(spec.path)
    if not spec.is_file:  # a built-in
        if isolation.mode == "none":
            from harness.agents.strategy_keys import strategy_for

            from .inprocess import BuiltinHandle

            return BuiltinHandle(spec.name, strategy_for(_entry(spec)))
        return _in_process_of_its_own(spec, _builtin_host_command(spec), isolation)
    from harness.agents.lang import LANGUAGES

    language = LANGUAGES[spec.language]
    if isolation.mode == "none" and language.runs_in_monitor:
        from harness.agents.agent_files import hand_over

        hand_over(spec.source, spec.content())  # the bytes the run plays (AgentSpec.content)
        factory = language.load(Path(spec.source), spec.entry)
        return _in_monitor(spec.name, factory, language.pairs(), isolation)
    argv = language.host_command(spec.source, spec.entry, isolation.memory_limit)
    return _in_process_of_its_own(spec, argv, isolation)


def _entry(spec) -> str:
    """What a built-in's host looks up: its name or strategy table's key."""
    from harness.agents.strategy_specs import strategy_key

    return strategy_key(spec)


def _builtin_host_command(spec) -> list[str]:
    from harness.agents.lang.python_process import python_host_command

    return python_host_command("builtin", "builtin", _entry(spec))


def _in_monitor(name, factory, pairs, isolation) -> PollableHandle:
    from .inprocess import InProcessHandle

    return InProcessHandle(name, factory, pairs, isolation.timeout)


def _in_process_of_its_own(spec, argv, isolation) -> PollableHandle:
    from harness.agents.lang.python_process import host_environment

    from .process import ProcessHandle

    return ProcessHandle(spec.name, argv, host_environment(""), isolation.timeout,
                         wrap=_launcher(spec, isolation))


def _launcher(spec, isolation):
    """(argv, env) -> how each of the agent's processes starts: inside the sandbox, or as a
    plain process (`process` mode, or no sandbox here), always with resource limits."""
    from ..sandbox import launcher

    return launcher(spec, isolation)
