"""Training a tabular Q-learning agent against the agent types of an experiment file
(`pdharness train FILE --out MODEL.json`).

Its state is the window of the last (at most) N move pairs that a Memory-N agent sees
(harness/memory_agents.py: with k moves per turn, move n looks at the moves ending one turn
earlier), its actions C and D, its reward the points of each move as played (after flips).
It plays real games through the same engine and handles as a tournament, against one copy
of each type in turn, so it trains against agent files in any isolation mode, with the
file's flips, moves per turn and horizon. Exploration is epsilon-greedy from the game's
agent seed, epsilon falling linearly to 0: the same seed gives the same model.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass

from .handles.base import SILENT_DEFAULT, GameStart, Last, ReadyHandle, Reply, plain_reply
from .memory_agents import window_state
from .qtable import Model
from .rules import Scorer


@dataclass(frozen=True)
class Training:
    memory: int = 1
    games: int = 3000
    alpha: float = 0.1           # learning rate
    gamma: float = 0.9           # discount of later moves
    epsilon: float = 0.2         # exploration at the start, falling to 0
    seed: int = 0

    def check(self) -> None:
        from .errors import ParameterError
        from .memory_agents import MAX_MEMORY

        if not 1 <= self.memory <= MAX_MEMORY:
            raise ParameterError(f"memory {self.memory} must be 1 to {MAX_MEMORY}")
        if self.games < 1:
            raise ParameterError(f"games {self.games} must be at least 1")
        for name in ("alpha", "gamma", "epsilon"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ParameterError(f"{name} {getattr(self, name)} must be from 0 to 1")


class Learner(ReadyHandle):
    """The learning agent as a game handle: chooses, and learns from each played turn."""

    name = "qlearner"

    def __init__(self, model: Model, training: Training):
        self.q, self.memory = model.q, model.memory
        self.alpha, self.gamma = training.alpha, training.gamma
        self.epsilon = training.epsilon
        self.reply = SILENT_DEFAULT

    def start_game(self, start: GameStart) -> None:
        self.mine: list[str] = []
        self.theirs: list[str] = []
        self.pending: list[tuple[int, int, int]] = []
        self.per_turn = start.moves_per_turn
        self.score = Scorer(start.payoffs)
        self.rng = random.Random(start.agent_seed)

    def request(self, last: Last) -> None:
        if last is not None:
            self.learn(last[0], last[1])
        moves = []
        for j in range(self.per_turn):
            n = len(self.mine) + j
            state = window_state(self.mine, self.theirs, n - self.per_turn, self.memory)
            if self.rng.random() < self.epsilon:
                action = self.rng.randrange(2)
            else:
                c, d = self.q[state]
                action = int(d > c)
            self.pending.append((state, action, n))
            moves.append("CD"[action])
        self.reply = plain_reply("".join(moves))

    def collect(self) -> Reply:
        return self.reply

    def learn(self, mine: str, theirs: str, final: bool = False) -> None:
        """The turn as played: update the value of each move of it."""
        self.mine.extend(mine)
        self.theirs.extend(theirs)
        q, alpha, gamma, k = self.q, self.alpha, self.gamma, self.per_turn
        for index, (state, action, n) in enumerate(self.pending):
            reward: float = self.score(self.mine[n], self.theirs[n])[0]
            last_move = final and index == len(self.pending) - 1
            if not last_move:
                following = window_state(self.mine, self.theirs, n + 1 - k, self.memory)
                reward += gamma * max(q[following])
            q[state][action] += alpha * (reward - q[state][action])
        self.pending = []

    def finish(self, record) -> None:
        """The game's last turn, which the game never sends back to a handle."""
        self.learn(record.played_a[-1], record.played_b[-1], final=True)

    def end_game(self) -> None:
        pass


def train(types, settings, training: Training, on_done=None) -> Model:
    """A model trained against `types` (harness.population.AgentType) under `settings`."""
    from .errors import HarnessError, LoadError
    from .game import play_game
    from .handles.opening import open_handle
    from .qtable import definition, fingerprint
    from .seeds import derive

    training.check()
    model = Model.untrained(training.memory)
    learner = Learner(model, training)
    handles = {}
    try:
        for agent_type in types:
            try:
                handles[agent_type.id] = open_handle(agent_type.template, settings.isolation)
            except LoadError as error:
                raise HarnessError(f"cannot train against {agent_type.id}: {error}") from error
        for game in range(training.games):
            agent_type = types[game % len(types)]
            seed = derive(training.seed, "train", game)
            learner.epsilon = training.epsilon * (1 - game / training.games)
            record = play_game(learner, handles[agent_type.id],
                               _length(settings.length, training.seed, game, seed), seed,
                               settings.game)
            learner.finish(record)
            if on_done:
                on_done(game + 1, training.games)
    finally:
        for handle in handles.values():
            handle.close()
    definitions = sorted({definition(t.template) for t in types})
    model.fingerprint, model.types = fingerprint(definitions), [t.id for t in types]
    model.training = dict(asdict(training), moves_per_turn=settings.game.moves_per_turn)
    return model


def _length(length, seed: int, game: int, game_seed: int) -> int:
    """As a tournament would draw it (harness/horizons.py)."""
    from .horizons import geometric_length
    from .rounds import draw_length

    if length.horizon == "geometric":
        return geometric_length(game_seed, length.stop_prob, length.high)
    return draw_length(seed, game + 1, length)
