"""A trained Q-table agent's model file (`qtable:MODEL.json`), and the fingerprint of the
agent types it was trained against.

The file is plain JSON (never pickle), read field by field under a size cap: the memory N,
the training types' ids and fingerprint, and per type (in `types` order) one pair of action
values (C, D) per window of the last m <= N move pairs (m = 0..N, in the order of
harness/agents/memory_agents.py) and the counts of that type's replies (C, D) to each window seen
in training. How the agent plays from them (a belief over the types, probing, the greedy
move of the likeliest type) is harness/agents/recognizer.py; it runs as a trusted built-in from
its key. It learned the types, not the instances: any number of copies of them needs no
retraining, but other types do, and the tool says so (`retrain_notes`, in
harness/agents/agent_types.py with what an agent type is).

Version 1 files (one Q-table for the whole mix, before the agent learned per type) are still read: one
pseudo-type with no reply counts, so it plays its one greedy table as before.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import HarnessError

from .agent_files import read_input_file
from .memory_agents import MAX_MEMORY, offset
from .recognizer import MAX_KEY, key_length, make_key

FORMAT = "pdharness-qtable"
VERSION = 2
MAX_MODEL_BYTES = 8 << 20
MAX_TYPES = 64
MAX_COUNT = 1 << 53


@dataclass
class Model:
    memory: int
    q: list[list[list[float]]]        # per type: [value of C, value of D] per window
    replies: list[list[list[int]]]    # per type: [C replies, D replies] seen per window
    fingerprint: str = ""
    types: list[str] = field(default_factory=list)
    training: dict = field(default_factory=dict)

    @classmethod
    def untrained(cls, memory: int, types: int = 1) -> "Model":
        states = offset(memory + 1)
        return cls(memory, [[[0.0, 0.0] for _ in range(states)] for _ in range(types)],
                   [[[0, 0] for _ in range(states)] for _ in range(types)],
                   types=[f"untrained{t + 1}" for t in range(types)])

    def greedy(self, t: int) -> str:
        """The better action per window against type t (C on a tie)."""
        return "".join("D" if d > c else "C" for c, d in self.q[t])

    def reply_probabilities(self, t: int) -> list[float]:
        """P(a D reply) per window, from the counts with one of each added (Laplace)."""
        return [(d + 1) / (c + d + 2) for c, d in self.replies[t]]

    def key(self) -> str:
        return make_key(self.memory, [self.greedy(t) for t in range(len(self.q))],
                        [self.reply_probabilities(t) for t in range(len(self.q))])

    def as_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "memory": self.memory,
                "fingerprint": self.fingerprint, "types": self.types,
                "training": self.training, "q": self.q, "replies": self.replies}


def save_model(model: Model, path) -> None:
    path = Path(path)
    try:
        path.write_text(json.dumps(model.as_json(), indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise HarnessError(f"{path}: cannot write the model: {error.strerror}") from error


def load_model(path) -> Model:
    """A model file, checked field by field: one clear line for anything else."""
    path = Path(path)
    data = read_input_file(path, MAX_MODEL_BYTES, "a Q-table model")
    try:
        content = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise HarnessError(f"{path}: not a Q-table model (not JSON: "
                           f"{' '.join(str(error).split())[:120]})") from error
    return _model_of(content, path)


def check_size(types: int, memory: int) -> str | None:
    """Why a model of this many types and this memory cannot be played, or None."""
    if not 1 <= types <= MAX_TYPES:
        return f"1 to {MAX_TYPES} types, not {types}"
    if key_length(types, memory) > MAX_KEY:
        return f"{types} types at memory {memory} are too many to play (fewer types, " \
               f"or a smaller memory)"
    return None


def _model_of(content, path) -> Model:
    def wrong(what: str):
        return HarnessError(f"{path}: not a Q-table model made by pdharness train ({what})")

    if not isinstance(content, dict) or content.get("format") != FORMAT:
        raise wrong(f"no \"format\": \"{FORMAT}\"")
    version = content.get("version")
    if version not in (1, VERSION) or isinstance(version, bool):
        raise wrong(f"version {str(version)[:20]}, this pdharness reads 1 and {VERSION}")
    memory = content.get("memory")
    if isinstance(memory, bool) or not isinstance(memory, int) or not 1 <= memory <= MAX_MEMORY:
        raise wrong(f"memory must be 1 to {MAX_MEMORY}")
    states = offset(memory + 1)
    fingerprint = content.get("fingerprint", "")
    types = content.get("types", [])
    if not isinstance(fingerprint, str) or not isinstance(types, list) \
            or not all(isinstance(t, str) for t in types) or len(types) > MAX_TYPES:
        raise wrong(f"fingerprint is a string, types a list of at most {MAX_TYPES} strings")
    training = content.get("training", {})
    training = training if isinstance(training, dict) else {}
    if version == 1:
        q = [_pairs(content.get("q"), states, memory, _number, "q", wrong)]
        types = ["+".join(types)[:200] or "mix"]
        replies = [[[0, 0] for _ in range(states)]]
    else:
        problem = check_size(len(types) or 1, memory)   # before reading the tables
        if problem:
            raise wrong(problem)
        q_tables, counts = content.get("q"), content.get("replies")
        if not isinstance(q_tables, list) or not isinstance(counts, list) \
                or not len(q_tables) == len(counts) == len(types) or not types:
            raise wrong("q and replies hold one table per type")
        q = [_pairs(table, states, memory, _number, "q", wrong) for table in q_tables]
        replies = [_pairs(table, states, memory, _count, "replies", wrong) for table in counts]
    return Model(memory, q, replies, fingerprint, types, training)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_COUNT


def _pairs(table, states: int, memory: int, valid, name: str, wrong) -> list:
    """One table of `states` pairs of values `valid` accepts, as plain floats or ints."""
    if not isinstance(table, list) or len(table) != states:
        raise wrong(f"{name} must hold {states} pairs per type for memory {memory}")
    for pair in table:
        if not (isinstance(pair, list) and len(pair) == 2 and all(valid(v) for v in pair)):
            raise wrong(f"each entry of {name} is a pair of "
                        f"{'finite numbers' if valid is _number else 'counts'}")
    kind = float if valid is _number else int
    return [[kind(a), kind(b)] for a, b in table]


# -- what a model was trained against -------------------------------------------------------
def fingerprint(definitions) -> str:
    return hashlib.sha256("\n".join(sorted(set(definitions))).encode()).hexdigest()
