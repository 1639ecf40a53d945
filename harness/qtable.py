"""A trained Q-table agent's model file (`qtable:MODEL.json`), and the fingerprint of the
agent types it was trained against.

The file is plain JSON (never pickle): the memory N, one pair of action values (C, D) per
window of the last m <= N move pairs (m = 0..N, in the order of harness/memory_agents.py),
and the fingerprint of the training types. Playing, the agent takes the better action of
its window (C on a tie), so it runs as a strategy table, a trusted built-in. It learned
the types, not the instances: any number of copies of them needs no retraining, but other
types do, and the tool says so (`retrain_notes`).
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from .errors import HarnessError
from .memory_agents import MAX_MEMORY, Policy, offset

FORMAT = "pdharness-qtable"
VERSION = 1
MAX_MODEL_BYTES = 8 << 20


@dataclass
class Model:
    memory: int
    q: list[list[float]]              # [value of C, value of D] per window
    fingerprint: str = ""
    types: list[str] = field(default_factory=list)
    training: dict = field(default_factory=dict)

    @classmethod
    def untrained(cls, memory: int) -> "Model":
        return cls(memory, [[0.0, 0.0] for _ in range(offset(memory + 1))])

    def policy(self) -> Policy:
        return Policy(self.memory, "".join("D" if d > c else "C" for c, d in self.q))

    def as_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "memory": self.memory,
                "fingerprint": self.fingerprint, "types": self.types,
                "training": self.training, "q": self.q}


def save_model(model: Model, path) -> None:
    path = Path(path)
    try:
        path.write_text(json.dumps(model.as_json(), indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise HarnessError(f"{path}: cannot write the model: {error.strerror}") from error


def load_model(path) -> Model:
    """A model file, checked field by field: one clear line for anything else."""
    from .population import read_bounded

    path = Path(path)
    data = read_bounded(path, MAX_MODEL_BYTES, "a Q-table model")
    try:
        content = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise HarnessError(f"{path}: not a Q-table model (not JSON: "
                           f"{' '.join(str(error).split())[:120]})") from error
    return _model_of(content, path)


def _model_of(content, path) -> Model:
    def wrong(what: str):
        return HarnessError(f"{path}: not a Q-table model made by pdharness train ({what})")

    if not isinstance(content, dict) or content.get("format") != FORMAT:
        raise wrong(f"no \"format\": \"{FORMAT}\"")
    if content.get("version") != VERSION:
        raise wrong(f"version {str(content.get('version'))[:20]}, this pdharness reads "
                    f"{VERSION}")
    memory = content.get("memory")
    if isinstance(memory, bool) or not isinstance(memory, int) or not 1 <= memory <= MAX_MEMORY:
        raise wrong(f"memory must be 1 to {MAX_MEMORY}")
    q = content.get("q")
    if not isinstance(q, list) or len(q) != offset(memory + 1):
        raise wrong(f"q must hold {offset(memory + 1)} pairs for memory {memory}")
    for pair in q:
        if not (isinstance(pair, list) and len(pair) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in pair)):
            raise wrong("each entry of q is a pair of finite numbers")
    fingerprint = content.get("fingerprint", "")
    types = content.get("types", [])
    if not isinstance(fingerprint, str) or not isinstance(types, list) \
            or not all(isinstance(t, str) for t in types):
        raise wrong("fingerprint is a string, types a list of strings")
    training = content.get("training", {})
    return Model(memory, [[float(c), float(d)] for c, d in q], fingerprint, types,
                 training if isinstance(training, dict) else {})


# -- what the agents are, for the fingerprint ------------------------------------------------
def definition(spec) -> str:
    """What an agent *is*, whatever its name: two copies of a type share it."""
    from .agent_files import file_hash as sha256_of

    if spec.language == "llm":   # a language model: its whole declaration (framing's text too)
        return "llm:" + hashlib.sha256(spec.llm.as_json().encode()).hexdigest()
    if spec.language == "builtin":
        if spec.path is not None:          # a Q-table: its model's contents
            return f"qtable:{sha256_of(spec.path)}"
        from .strategy_specs import strategy_key

        return f"builtin:{strategy_key(spec)}"
    return f"{spec.language}:{sha256_of(spec.path)}"


def fingerprint(definitions) -> str:
    return hashlib.sha256("\n".join(sorted(set(definitions))).encode()).hexdigest()


def retrain_notes(specs) -> list[str]:
    """For each Q-table model among the agents: a note when the other agents' types are not
    the ones it was trained against."""
    notes = []
    seen = set()
    for spec in specs:
        path = spec.path if spec.language == "builtin" else None
        if path is None or str(path) in seen:
            continue
        seen.add(str(path))
        own = definition(spec)
        others = {definition(s) for s in specs} - {own}
        if load_model(path).fingerprint != fingerprint(others):
            notes.append(f"{path} was trained against other agent types than these; it "
                         f"plays, but for these retrain it: pdharness train FILE --out {path}")
    return notes
