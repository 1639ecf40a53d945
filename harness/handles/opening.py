"""From an AgentSpec and an isolation mode to a ready handle (or LoadError)."""
from __future__ import annotations

from dataclasses import dataclass

from ..agents import AgentSpec
from .base import PollableHandle


@dataclass(frozen=True)
class Isolation:
    """How agents run: `sandbox` (own process inside bubblewrap), `process` (own process)
    or `none` (inside the monitor)."""

    mode: str = "sandbox"
    timeout: float = 1.0
    memory_limit: int = 1 << 30   # bytes of address space for an agent's process


def open_handle(spec: AgentSpec, isolation: Isolation) -> PollableHandle:
    from ..languages import LANGUAGES

    if spec.language == "callable":
        from lisp_bridge.hy_loader import defined_in_hy

        language = LANGUAGES["hy" if defined_in_hy(spec.function) else "python"]
        return _in_monitor(spec.name, lambda rng, per_turn: spec.function, language, isolation)
    language = LANGUAGES[spec.language]
    if spec.path is not None:  # no link, FIFO, device or huge file, in every mode alike
        from ..agents import check_agent_file

        check_agent_file(spec.path)
    if isolation.mode == "none" and spec.language == "builtin":
        from .inprocess import BuiltinHandle

        return BuiltinHandle(spec.name, language.load(None, _entry(spec)))
    if isolation.mode == "none" and language.in_monitor:
        return _in_monitor(spec.name, language.load(spec.path, spec.entry), language, isolation)
    return _in_process_of_its_own(spec, language, isolation)


def _entry(spec) -> str:
    """What the loader looks up: a built-in's name or strategy key, a file's agent name."""
    if spec.language == "builtin":
        from ..strategy_specs import strategy_key

        return strategy_key(spec)
    return spec.entry


def _in_monitor(name, factory, language, isolation) -> PollableHandle:
    from .inprocess import InProcessHandle

    return InProcessHandle(name, factory, language.pairs(), isolation.timeout)


def _in_process_of_its_own(spec, language, isolation) -> PollableHandle:
    from ..languages import host_environment
    from .process import ProcessHandle

    source = spec.source if spec.language != "builtin" else "builtin"
    argv = language.host_command(source, _entry(spec))
    return ProcessHandle(spec.name, argv, host_environment(""), isolation.timeout,
                         wrap=_launcher(spec, isolation))


def _launcher(spec, isolation):
    """(argv, env) -> how each of the agent's processes starts: inside the sandbox, or as a
    plain process (`process` mode, or no sandbox here), always with resource limits."""
    from ..sandbox import launcher

    return launcher(spec, isolation)
