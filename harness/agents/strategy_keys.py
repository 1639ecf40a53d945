"""A built-in strategy from the key a host process is given: a built-in's name, a strategy
table's key (harness/agents/memory_agents.py) or a trained Q-table agent's
(harness/agents/recognizer.py). Above all three, so none of them imports another's
dispatch."""
from __future__ import annotations

from .builtins import BUILTINS, Builtin
from .memory_agents import TABLE_PREFIX, parse_table_key
from .recognizer import BELIEF_PREFIX, Recognizer


def strategy_for(key: str) -> Builtin:
    """A built-in by name, a strategy table by its key, or a trained Q-table agent by its
    key."""
    if key.startswith(BELIEF_PREFIX):
        return Recognizer(key).builtin()
    if key.startswith(TABLE_PREFIX):
        return parse_table_key(key).builtin()
    return BUILTINS[key]
