"""Agent specs that name trusted strategies with parameters: `memory:BITS` (a Memory-N
strategy vector, harness/agents/memory_agents.py) and `qtable:MODEL.json` (a trained Q-table,
harness/agents/qtable.py). Both run as built-ins do (our own code: in the monitor for `none`,
in a host process otherwise), from the key they spell: a strategy table's, or a trained
model's (harness/agents/recognizer.py)."""
from __future__ import annotations

from pathlib import Path

from .memory_agents import MEMORY_PREFIX

QTABLE_PREFIX = "qtable:"


def is_strategy(argument: str) -> bool:
    return argument.startswith((MEMORY_PREFIX, QTABLE_PREFIX))


def strategy_spec(argument: str, name: str | None = None, base: Path | None = None):
    """The AgentSpec of `memory:...` or `qtable:PATH` (PATH relative to `base` when given),
    checked now so a bad vector or model is one clear line before anything runs."""
    from .specs import AgentSpec, Kind

    if argument.startswith(MEMORY_PREFIX):
        from .memory_agents import parse_memory

        parse_memory(argument)
        return AgentSpec(name or argument, Kind.MEMORY.spelling, argument)
    path = Path(argument[len(QTABLE_PREFIX):])
    if base is not None and not path.is_absolute():
        path = base / path
    from .qtable import load_model

    load_model(path)
    return AgentSpec(name or argument, Kind.QTABLE.spelling, QTABLE_PREFIX + str(path))


def strategy_key(spec) -> str:
    """What a built-in spec runs: a built-in's name, or the key of a strategy table."""
    from .specs import Kind

    kind, source = spec.kind, spec.source
    if kind is Kind.MEMORY:
        from .memory_agents import parse_memory

        return parse_memory(source).key()
    if kind is Kind.QTABLE:
        from .qtable import load_model

        return load_model(Path(source[len(QTABLE_PREFIX):])).key()
    # a built-in by name; a population's copy names its built-in in its source
    return spec.name if source == Kind.BUILTIN.spelling else source


def model_path(source: str) -> Path | None:
    """The model file of a `qtable:` spec (recorded with its hash, checked on resume)."""
    return Path(source[len(QTABLE_PREFIX):]) if source.startswith(QTABLE_PREFIX) else None
