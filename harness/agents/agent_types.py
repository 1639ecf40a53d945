"""What an agent *is*, whatever its name (`definition`): the set of them is what a Q-table
model records it was trained against, and what an experiment's record checks on resume.
Above the kinds of agents it tells apart (files, built-ins, strategy tables, Q-tables,
language models)."""
from __future__ import annotations

import hashlib

from .agent_files import file_hash as sha256_of
from .qtable import fingerprint, load_model
from .specs import Kind
from .strategy_specs import strategy_key


def definition(spec) -> str:
    """What an agent *is*, whatever its name: two copies of a type share it."""
    # the words below are in every trained model's fingerprint: kept as they were written
    kind = spec.kind
    if kind is Kind.LLM:   # a language model: its whole declaration (framing's text too)
        return "llm:" + hashlib.sha256(spec.llm.as_json().encode()).hexdigest()
    if kind is Kind.QTABLE:   # its model's contents
        return f"qtable:{sha256_of(spec.path)}"
    if kind.strategy:
        return f"builtin:{strategy_key(spec)}"
    return f"{spec.language}:{spec.sha256()}"   # a bundle's: of all its files


def retrain_notes(specs) -> list[str]:
    """For each Q-table model among the agents: a note when the other agents' types are not
    the ones it was trained against."""
    notes = []
    seen = set()
    for spec in specs:
        path = spec.path if spec.kind is Kind.QTABLE else None
        if path is None or str(path) in seen:
            continue
        seen.add(str(path))
        own = definition(spec)
        others = {definition(s) for s in specs} - {own}
        if load_model(path).fingerprint != fingerprint(others):
            notes.append(f"{path} was trained against other agent types than these; it "
                         f"plays, but for these retrain it: pdharness train FILE --out {path}")
    return notes
