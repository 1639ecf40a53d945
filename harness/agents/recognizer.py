"""A trained Q-table agent at play: it finds out which of its training types it faces, then
plays the best answer it learned against that type.

Why this design. A Q-table whose state is only the last move pairs cannot tell
`cooperate` from `titfortat` while both cooperate: the state is the same, so it settles on
one answer for both and never exploits the one that does not retaliate. The model learns
the types, not the instances, so it may spend its effort on telling the few types apart:
- **A reply model per type.** Training counts, for each type and each window of the last N
  move pairs (the window a Memory-N agent answers, ending one turn earlier), how often the
  type answered C and D *as played*. So the model knows each type's policy with the flips
  of the training games already in it, for any kind of type (a built-in, a memory vector,
  a student's file in any language), without running the type's code in the agent's own
  process: a trained agent stays a trusted built-in, whose host can play where no student
  code could run, and its file stays plain numbers.
- **A belief over the types,** updated by Bayes' rule from each of the opponent's moves as
  played (each likelihood kept within [FLOOR, 1 - FLOOR], so one surprise does not rule a
  type out for good, and no type falls more than SPAN nats below the best, so the belief
  can turn within a few moves when an untrained opponent changes its ways).
- **Probing while unsure.** When no type holds CONFIDENCE of the belief, the agent plays,
  for each move, the action whose reply would best tell the likely types apart (the mutual
  information between the type and its reply one turn later, from the reply models), if it
  tells more than the greedy action by MIN_GAIN nats: against `cooperate` or `titfortat` it
  defects once and watches whether the opponent retaliates. Flips of its own moves probe
  for free, and the belief takes them in alike.
- **One Q-table per type,** each trained only in games against its type (the trainer knows
  the type it plays), so each holds the best answer to that type; the state the agent acts
  on is (the most likely type, the window), as the issue proposed.
An opponent of a type it was not trained on is taken for the most similar trained type
(`pdharness` also says the model should be retrained for it).

At play the model runs from its key `belief:N:TABLE.REPLIES/...`: per type, the greedy
move per window (C/D) and the probability of a D reply per window quantized to 1/255 (two
hex digits). Playing in the monitor or in a host process starts from the same key, so it
plays the same in every isolation mode.
"""
from __future__ import annotations

import math

from .builtins import Builtin, Strategy
from .memory_agents import MAX_MEMORY, offset, window_state

BELIEF_PREFIX = "belief:"
CONFIDENCE = 0.9      # the belief a type needs before the agent stops probing
MIN_GAIN = 0.05       # nats of information a probe must add over the greedy move
FLOOR = 0.02          # the least likelihood one observed move can have under a type
SPAN = 8.0            # no type's log-belief falls more than this below the best
MAX_KEY = 120_000     # characters: a key travels as one command-line argument (< 128 KiB)


def key_length(types: int, memory: int) -> int:
    return len(BELIEF_PREFIX) + 2 + types * (offset(memory + 1) * 3 + 1)


def make_key(memory: int, tables: list[str], replies: list[list[float]]) -> str:
    """The key of a model: per type its greedy table and its P(D reply) per window."""
    parts = ["".join(tables[t]) + "." + "".join(f"{round(p * 255):02x}" for p in replies[t])
             for t in range(len(tables))]
    return f"{BELIEF_PREFIX}{memory}:{'/'.join(parts)}"


class Recognizer:
    """The playing model, rebuilt from its key (our own: checked, never evaluated)."""

    def __init__(self, key: str):
        memory, _, body = key[len(BELIEF_PREFIX):].partition(":")
        self.memory = int(memory) if memory.isdigit() else 0
        states = offset(self.memory + 1)
        self.tables: list[str] = []
        self.replies: list[list[float]] = []
        for part in body.split("/"):
            table, _, hexes = part.partition(".")
            if not 1 <= self.memory <= MAX_MEMORY or len(table) != states or \
                    set(table) - set("CD") or len(hexes) != 2 * states:
                raise ValueError(f"not a Q-table key: {key[:60]!r}")
            self.tables.append(table)
            self.replies.append([int(hexes[i:i + 2], 16) / 255 for i in range(0, len(hexes), 2)])

    def builtin(self) -> Builtin:
        recognizer = self

        class _Trained(Builtin):
            def strategy(self, rng, moves_per_turn: int) -> Strategy:
                return Strategy(_Game(recognizer).choose, rng, moves_per_turn)

        return _Trained(None, f"Q-table agent recognizing {len(self.tables)} trained types.")


class _Game:
    """One game's belief and choices."""

    def __init__(self, model: Recognizer):
        self.model = model
        self.log_belief = [0.0] * len(model.tables)
        self.seen_upto = 0            # their moves already taken into the belief
        self.turn_start = -1
        self.chosen: list[str] = []   # my moves chosen so far in this turn

    def choose(self, seen, n: int, rng, k: int) -> str:
        if len(seen.mine) != self.turn_start:
            self.turn_start = len(seen.mine)
            self.chosen = []
            self._observe(seen.mine, seen.theirs, k)
        belief = self.belief()
        best = max(range(len(belief)), key=lambda t: (belief[t], -t))
        move = self.model.tables[best][window_state(seen.mine, seen.theirs, n - k,
                                                    self.model.memory)]
        if belief[best] < CONFIDENCE:
            gain = {a: self._information(seen, n, k, a, belief) for a in "CD"}
            other = "D" if move == "C" else "C"
            if gain[other] > gain[move] + MIN_GAIN:
                move = other
        self.chosen.append(move)
        return move

    def belief(self) -> list[float]:
        top = max(self.log_belief)
        weights = [math.exp(v - top) for v in self.log_belief]
        total = sum(weights)
        return [w / total for w in weights]

    def _observe(self, mine, theirs, k: int) -> None:
        model, log_belief = self.model, self.log_belief
        for i in range(self.seen_upto, len(theirs)):
            state = window_state(mine, theirs, i - k, model.memory)
            defected = theirs[i] == "D"
            for t, replies in enumerate(model.replies):
                p = replies[state] if defected else 1 - replies[state]
                log_belief[t] += math.log(min(max(p, FLOOR), 1 - FLOOR))
        self.seen_upto = len(theirs)
        top = max(log_belief)
        self.log_belief = [max(v, top - SPAN) for v in log_belief]

    def _information(self, seen, n: int, k: int, action: str, belief) -> float:
        """How much the opponent's reply to `action` at move n (its move n + k, which
        answers the window ending at n) would tell about its type, in nats. Their moves of
        this turn are not known yet: each is taken as the belief's likelier reply."""
        model, start = self.model, len(seen.mine)
        mine: list[str] = []       # the window ending at n only: O(memory), not the game
        theirs: list[str] = []
        for i in range(max(0, n - model.memory + 1), n + 1):
            if i < start:
                mine.append(seen.mine[i])
                theirs.append(seen.theirs[i])
                continue
            mine.append(self.chosen[i - start] if i < n else action)
            state = window_state(seen.mine, seen.theirs, i - k, model.memory)
            mixed = sum(b * r[state] for b, r in zip(belief, model.replies, strict=True))
            theirs.append("D" if mixed > 0.5 else "C")
        state = window_state(mine, theirs, len(mine) - 1, model.memory)
        probabilities = [r[state] for r in model.replies]
        pairs = list(zip(belief, probabilities, strict=True))
        return _entropy(sum(b * p for b, p in pairs)) - sum(b * _entropy(p) for b, p in pairs)


def _entropy(p: float) -> float:
    return -sum(x * math.log(x) for x in (p, 1 - p) if x > 0)
