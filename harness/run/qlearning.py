"""Training the Q-table agent against the agent types of an experiment file
(`pdharness train FILE --out MODEL.json`); how it plays is harness/agents/recognizer.py, which
argues for the design.

It plays real games through the same engine and handles as a tournament, against one copy
of each type in turn, so it trains against agent files in any isolation mode, with the
file's flips, moves per turn and horizon. The trainer knows which type each game is
against, and learns two things per type:
- its replies: how often the type answered C and D (as played) to each window of the last
  N move pairs ending one turn before its move (the window a Memory-N agent answers);
- a Q-table: state the same window before the agent's own move, actions C and D, reward the
  points of the move as played (after flips).
A move's consequence reaches the opponent one turn later (every built-in and memory vector
answers the moves of the turn before), so move n's value is learned from the state of move
n + k (k moves per turn), the first state whose window holds move n; the moves of the last
turn have no such state and end the chain. (Bootstrapping from move n + 1 instead, whose
window does not hold move n when k > 1, would teach it that no move has a consequence:
it would learn to defect against `titfortat` in the Levinson game.)
Exploration is epsilon-greedy from the game's agent seed, epsilon falling linearly to 0,
and the learning rate falls linearly to a twentieth of its start, so the values settle
(with flips, a constant rate leaves them noisier than the margin of one point by which
defecting beats cooperating against `defect`). The discount is per turn, 0.95 by default:
against `titfortat`, cooperating beats the best cycle of defections (D, then C to make
peace) only with a discount above about 0.9. The same seed gives the same model.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass

from harness.agents.agent_types import definition
from harness.agents.memory_agents import MAX_MEMORY, window_state
from harness.agents.qtable import Model, check_size, fingerprint
from harness.core.errors import HarnessError, LoadError, ParameterError
from harness.core.horizons import geometric_length
from harness.core.rules import Scorer
from harness.core.seeds import derive
from harness.engine.game import play_game
from harness.engine.parameters import SEED
from harness.engine.rounds import draw_length
from harness.isolation.handles.agent_handle import (
    SILENT_DEFAULT,
    GameStart,
    Last,
    ReadyHandle,
    Reply,
    plain_reply,
)


@dataclass(frozen=True)
class Training:
    memory: int = 1
    games: int = 3000
    alpha: float = 0.1           # learning rate at the start, falling to a twentieth of it
    gamma: float = 0.95          # discount per turn
    epsilon: float = 0.2         # exploration at the start, falling to 0
    seed: int = 0

    def check(self) -> None:
        if not 1 <= self.memory <= MAX_MEMORY:
            raise ParameterError(f"memory {self.memory} must be 1 to {MAX_MEMORY}")
        if self.games < 1:
            raise ParameterError(f"games {self.games} must be at least 1")
        if not SEED.holds(self.seed):   # the bounds of every seed
            raise ParameterError(f"seed {self.seed} must be {SEED.low} to {SEED.high}")
        for name in ("alpha", "gamma", "epsilon"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ParameterError(f"{name} {getattr(self, name)} must be from 0 to 1")


class Learner(ReadyHandle):
    """The learning agent as a game handle: chooses with the Q-table of the type it is told
    it faces (`against`), and learns from each played turn."""

    name = "qlearner"

    def __init__(self, model: Model, training: Training):
        self.model, self.memory = model, model.memory
        self.alpha, self.gamma = training.alpha, training.gamma
        self.epsilon = training.epsilon
        self.reply = SILENT_DEFAULT
        self.flips = [0, 0]       # its own moves played as intended, flipped: every game's
        self.games, self.turns = 1, 2
        self.against(0)

    def against(self, t: int) -> None:
        self.q, self.counts = self.model.q[t], self.model.replies[t]

    def start_game(self, start: GameStart) -> None:
        self.mine: list[str] = []
        self.theirs: list[str] = []
        self.pending: list[tuple[int, int, int]] = []
        self.per_turn = start.moves_per_turn
        score = Scorer(start.payoffs)
        self.points = [[score(mine, theirs)[0] for theirs in "CD"] for mine in "CD"]
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

    def learn(self, mine: str, theirs: str) -> None:
        """The turn as played: count the opponent's replies and its own flips, then update
        each move's value by its expected outcome (below)."""
        first = len(self.theirs)
        self.mine.extend(mine)
        self.theirs.extend(theirs)
        k, memory, counts = self.per_turn, self.memory, self.counts
        for i in range(first, len(self.theirs)):
            state = window_state(self.mine, self.theirs, i - k, memory)
            counts[state][self.theirs[i] == "D"] += 1
        for _state, action, n in self.pending:
            self.flips[self.mine[n] != "CD"[action]] += 1
        flip = (self.flips[1] + 1) / (sum(self.flips) + 2)
        self.turns += 1
        going_on = self.gamma * (1 - self.games / self.turns)   # no game: a half
        for state, _action, n in self.pending:
            self.update(state, n, flip, going_on)
        self.pending = []

    def update(self, state: int, n: int, flip: float, going_on: float) -> None:
        """Q(state, C) and Q(state, D) toward the expected points of move n and the value
        of the state it leads to (that of move n + k), over the four ways move n may be
        played: its own flip (at the rate seen so far) and the opponent's reply (from its
        counts for this state). With memory 1 this is the exact expectation; with more, the
        window's other moves are those played. The reply answers the turn before, whatever
        this move is, so both actions' values are updated at every visit, not only the one
        taken: every state seen converges, not only the actions exploration tried. An
        expectation rather than the one outcome sampled keeps the values' noise below the
        small margins that decide against `titfortat` with flips (a third of a point at
        10%). For the same reason the end of a game is
        an expectation too: the value of what follows is discounted by gamma and by the
        chance that the game goes on after a turn (1 - games / turns seen in training),
        the last turn's moves alike (a sampled end would pull each value toward its one
        move's points, by far the largest noise)."""
        q, mine, theirs, points = self.q, self.mine, self.theirs, self.points
        c_count, d_count = self.counts[state]
        their_d = (d_count + 1) / (c_count + d_count + 2)
        played_mine, played_theirs = mine[n], theirs[n]
        mine[n] = theirs[n] = "C"          # the window ending at n, its last pair C C ...
        base = window_state(mine, theirs, n, self.memory)
        mine[n], theirs[n] = played_mine, played_theirs
        mine_bit = 1 << min(self.memory, n + 1)   # ... and where its last pair's bits are
        outcomes = [[points[my_d][their] + going_on * max(q[base + my_d * mine_bit + their])
                     for their in (0, 1)] for my_d in (0, 1)]
        values = q[state]
        for action in (0, 1):
            target = 0.0
            for my_d, p_mine in ((action, 1 - flip), (1 - action, flip)):
                target += p_mine * ((1 - their_d) * outcomes[my_d][0] +
                                    their_d * outcomes[my_d][1])
            values[action] += self.alpha * (target - values[action])

    def finish(self, record) -> None:
        """The game's last turn, which the game never sends back to a handle."""
        self.games += 1
        self.learn(record.played_a[-1], record.played_b[-1])

    def end_game(self) -> None:
        pass


def train(types, settings, training: Training, on_done=None) -> Model:
    """A model trained against `types` (harness.agents.population.AgentType) under `settings`."""
    # heavy (concurrent, ctypes, email): loaded only where used
    from harness.isolation.handles.opening import open_handle

    training.check()
    problem = check_size(len(types), training.memory)
    if problem:
        raise ParameterError(f"cannot train a model of {problem}")
    model = Model.untrained(training.memory, len(types))
    learner = Learner(model, training)
    handles = {}
    try:
        for agent_type in types:
            try:
                handles[agent_type.id] = open_handle(agent_type.template, settings.isolation)
            except LoadError as error:
                raise HarnessError(f"cannot train against {agent_type.id}: {error}") from error
        for game in range(training.games):
            t = game % len(types)
            learner.against(t)
            seed = derive(training.seed, "train", game)
            progress = game / training.games
            learner.epsilon = training.epsilon * (1 - progress)
            learner.alpha = training.alpha * (1 - 0.95 * progress)
            record = play_game(learner, handles[types[t].id],
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
    """As a tournament would draw it (harness/core/horizons.py)."""
    if length.horizon == "geometric":
        return geometric_length(game_seed, length.stop_prob, length.high)
    return draw_length(seed, game + 1, length)
