"""Agent specs that name trusted strategies with parameters: `memory:BITS` (a Memory-N
strategy vector, harness/agents/memory_agents.py) and `qtable:MODEL.json` (a trained Q-table,
harness/agents/qtable.py). Both run as built-ins do (our own code: in the monitor for `none`,
in a host process otherwise), from the key they spell: a strategy table's, or a trained
model's (harness/agents/recognizer.py). Their AgentSpec is built, checked, by
harness/agents/specs.py's `strategy_spec`: this module is below the spec, so the spec may
ask it."""
from __future__ import annotations

from pathlib import Path

from .memory_agents import MEMORY_PREFIX, parse_memory
from .qtable import load_model

QTABLE_PREFIX = "qtable:"


def is_strategy(argument: str) -> bool:
    return argument.startswith((MEMORY_PREFIX, QTABLE_PREFIX))


def strategy_key(spec) -> str:
    """What a built-in spec runs: a built-in's name, or the key of a strategy table (told
    apart by the prefixes this module owns; the spec's `Kind` is read from them too)."""
    source = spec.source
    if source.startswith(MEMORY_PREFIX):
        return parse_memory(source).key()
    if source.startswith(QTABLE_PREFIX):
        return load_model(Path(source[len(QTABLE_PREFIX):])).key()
    return spec.name if source == "builtin" else source  # a population's copy: its built-in


def model_path(source: str) -> Path | None:
    """The model file of a `qtable:` spec (recorded with its hash, checked on resume)."""
    return Path(source[len(QTABLE_PREFIX):]) if source.startswith(QTABLE_PREFIX) else None
