"""One game of L turns between two agent handles (docs/rules.md, "A game" and "Flips (noise)").

Each turn both agents are asked for their moves with the state as it was before the turn;
each move is then flipped with chance F, drawn separately for each agent from its own
generator, and the moves are played one at a time, move k of A against move k of B.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generator, NamedTuple

from harness.core import seeds
from harness.core.fault_policy import FAULT_POLICY, Event
from harness.core.rules import FLIPPED, GameParams, Scorer
from harness.isolation.handles.agent_handle import AgentHandle, Chatter, Fault, GameStart, Reply


class Turn(NamedTuple):
    intended_a: str
    played_a: str
    intended_b: str
    played_b: str
    fault_a: Fault | None = None
    fault_b: Fault | None = None
    score: tuple[int, int] = (0, 0)        # running score after this turn


@dataclass
class GameRecord:
    """A game, turn by turn. Kept by column (one string per turn and side) because records
    cross between worker processes and into the database by the thousand; `turns` gives
    the same as Turn rows."""

    round: int
    a: str                                  # the name that sorts first
    b: str
    length: int
    seed: int
    score: tuple[int, int] = (0, 0)
    intended_a: list[str] = field(default_factory=list)
    played_a: list[str] = field(default_factory=list)
    intended_b: list[str] = field(default_factory=list)
    played_b: list[str] = field(default_factory=list)
    running_a: list[int] = field(default_factory=list)     # score after each turn
    running_b: list[int] = field(default_factory=list)
    fault_at: dict[tuple[str, int], Fault] = field(default_factory=dict)  # (side, turn - 1)
    warnings: dict[str, str] = field(default_factory=dict)   # first warning per side
    # a language-model agent's prompts, responses and chat, by (side, turn - 1)
    talk: dict[tuple[str, int], dict] = field(default_factory=dict)

    def add_turn(self, turn: Turn) -> None:
        self.intended_a.append(turn.intended_a)
        self.played_a.append(turn.played_a)
        self.intended_b.append(turn.intended_b)
        self.played_b.append(turn.played_b)
        self.running_a.append(turn.score[0])
        self.running_b.append(turn.score[1])
        index = len(self.intended_a) - 1
        for side, fault in (("a", turn.fault_a), ("b", turn.fault_b)):
            if fault is not None:
                self.fault_at[side, index] = fault

    @property
    def turns(self) -> list[Turn]:
        fault_at = self.fault_at
        return [Turn(ia, pa, ib, pb, fault_at.get(("a", i)), fault_at.get(("b", i)), (sa, sb))
                for i, (ia, pa, ib, pb, sa, sb) in enumerate(zip(
                    self.intended_a, self.played_a, self.intended_b, self.played_b,
                    self.running_a, self.running_b, strict=False))]

    def faults(self, side: str) -> list[tuple[int, Fault]]:
        """(turn number from 1, fault) for one side, in turn order."""
        return sorted((index + 1, fault) for (s, index), fault in self.fault_at.items()
                      if s == side)

    def fault_count(self, side: str) -> int:
        return sum(1 for s, _index in self.fault_at if s == side)


@lru_cache(maxsize=256)
def _chances(flip, per_turn: int, length: int, per_move: bool) -> tuple[float, ...]:
    """F for each turn of a game (or each move, when F changes within a turn)."""
    if per_move:
        return tuple(flip.chance(m // per_turn, m) for m in range(length * per_turn))
    return tuple(flip.chance(t, t * per_turn) for t in range(length))


_NO_FLIP: tuple[int, ...] = ()
_FIRST_MOVE = (0,)


def _flips(params: GameParams, seed: int, length: int) -> list[tuple[int, ...]]:
    """Which moves of each turn one agent's flips turn over: for each turn, the positions
    flipped (most often none). A move's F depends only on how many moves the agent has
    played, never on what they were, so the whole game is drawn up front from the agent's
    own generator, in the order a move-by-move draw would take: one draw a move, and none
    in a turn whose F (one for the whole turn) is 0."""
    flip, per_turn = params.flip, params.moves_per_turn
    draw = random.Random(seed).random
    if not flip.per_turn_constant():
        chances = _chances(flip, per_turn, length, True)
        return [tuple([k for k in range(per_turn) if draw() < chances[turn * per_turn + k]])
                for turn in range(length)]
    turn_chances = _chances(flip, per_turn, length, False)
    if per_turn == 1:   # the common case, and a long game's hot loop: one draw a turn
        return [_FIRST_MOVE if chance > 0 and draw() < chance else _NO_FLIP
                for chance in turn_chances]
    return [tuple([k for k in range(per_turn) if draw() < chance]) if chance > 0 else _NO_FLIP
            for chance in turn_chances]


def _turned_over(moves: str, positions: tuple[int, ...]) -> str:
    """`moves` with the moves at `positions` flipped."""
    if len(moves) == 1:
        return FLIPPED[moves]
    return "".join([FLIPPED[m] if k in positions else m for k, m in enumerate(moves)])


def play_game(handle_a: AgentHandle, handle_b: AgentHandle, length: int, seed: int,
              params: GameParams, round_number: int = 0, on_turn=None) -> GameRecord:
    """handle_a plays side "a" (its name sorts first); the result keeps every turn.
    `on_turn(record)`, if given, is called as soon as each turn is played (`play` streams
    the trace with it)."""
    steps = game_steps(handle_a, handle_b, length, seed, params, round_number, on_turn)
    while True:
        try:
            next(steps)
        except StopIteration as finished:
            return finished.value


def game_steps(handle_a: AgentHandle, handle_b: AgentHandle, length: int, seed: int,
               params: GameParams, round_number: int = 0,
               on_turn=None) -> Generator[None, None, GameRecord]:
    """The game as a generator: it pauses after asking both agents for a turn, so a runner
    can wait on many games' agents at once; its return value is the GameRecord. An agent
    the fault policy gives up on (timeouts in a row: harness/core/fault_policy.py) is not
    asked again: its handle gets no request until the game ends."""
    record = GameRecord(round_number, handle_a.name, handle_b.name, length, seed)
    per_turn, payoffs = params.moves_per_turn, params.payoffs
    points = Scorer(payoffs).points
    default = params.default_moves
    flips_a = _flips(params, seeds.flip_seed(seed, "a"), length)
    flips_b = _flips(params, seeds.flip_seed(seed, "b"), length)
    intended_as, played_as = record.intended_a, record.played_a
    intended_bs, played_bs = record.intended_b, record.played_b
    running_a, running_b, fault_at = record.running_a, record.running_b, record.fault_at
    handle_a.start_game(GameStart(seeds.agent_seed(seed, "a"), per_turn, payoffs))
    handle_b.start_game(GameStart(seeds.agent_seed(seed, "b"), per_turn, payoffs))
    last_a = last_b = None
    score_a = score_b = 0
    # timeouts in a row, and whether the policy still has the game ask each agent: both
    # change only on a fault (an agent not asked has one every turn), off the hot path
    timeouts_a = timeouts_b = 0
    asks_a = asks_b = True
    asks, timeouts_after = FAULT_POLICY.asks, FAULT_POLICY.timeouts_after
    chat = _both_chat(handle_a, handle_b)
    talks = isinstance(handle_a, Chatter) or isinstance(handle_b, Chatter)  # a model plays
    for turn in range(length):
        if chat is not None and asks_a and asks_b:
            # the chat phase: A speaks first on odd turns (counting from 1), B on even ones;
            # the second is asked once the first has answered, and hears its chat only
            first, second = chat if turn % 2 == 0 else (chat[1], chat[0])
            last_first, last_second = (last_a, last_b) if turn % 2 == 0 else (last_b, last_a)
            first.talk_turn(True, None)
            first.request(last_first)
            yield
            reply_first = first.collect()
            second.talk_turn(False, first.said())
            second.request(last_second)
            yield
            reply_second = second.collect()
            reply_a, reply_b = ((reply_first, reply_second) if turn % 2 == 0
                                else (reply_second, reply_first))
        else:
            if asks_a:
                handle_a.request(last_a)
            if asks_b:
                handle_b.request(last_b)
            yield
            reply_a = handle_a.collect() if asks_a else _NOT_ASKED
            reply_b = handle_b.collect() if asks_b else _NOT_ASKED
        if talks:   # its prompts and responses, kept with the turn
            if reply_a.talk is not None:
                record.talk["a", turn] = reply_a.talk
            if reply_b.talk is not None:
                record.talk["b", turn] = reply_b.talk
        intended_a = reply_a.moves or default
        intended_b = reply_b.moves or default
        flipped_a, flipped_b = flips_a[turn], flips_b[turn]
        played_a = _turned_over(intended_a, flipped_a) if flipped_a else intended_a
        played_b = _turned_over(intended_b, flipped_b) if flipped_b else intended_b
        gained_a, gained_b = points[played_a, played_b]
        score_a += gained_a
        score_b += gained_b
        intended_as.append(intended_a)
        played_as.append(played_a)
        intended_bs.append(intended_b)
        played_bs.append(played_b)
        running_a.append(score_a)
        running_b.append(score_b)
        if reply_a.fault is None:
            timeouts_a = 0
        else:
            fault_at["a", turn] = reply_a.fault
            timeouts_a = timeouts_after(timeouts_a, reply_a.fault.kind)
            asks_a = asks(timeouts_a)
        if reply_b.fault is None:
            timeouts_b = 0
        else:
            fault_at["b", turn] = reply_b.fault
            timeouts_b = timeouts_after(timeouts_b, reply_b.fault.kind)
            asks_b = asks(timeouts_b)
        if reply_a.warning or reply_b.warning:
            _note_warning(record, "a", reply_a)
            _note_warning(record, "b", reply_b)
        last_a, last_b = (played_a, played_b), (played_b, played_a)
        if on_turn is not None:
            on_turn(record)
    handle_a.end_game()
    handle_b.end_game()
    record.score = (score_a, score_b)
    return record


_NOT_ASKED = Reply(None, Fault(FAULT_POLICY.kind(Event.NOT_ASKED), FAULT_POLICY.not_asked))


def _both_chat(a: AgentHandle, b: AgentHandle) -> tuple[Any, Any] | None:
    """Both handles, when both talk before they answer (language-model agents with chat
    on); a model facing any other agent plays without the chat phase."""
    if isinstance(a, Chatter) and isinstance(b, Chatter) and a.chats and b.chats:
        return a, b
    return None


def _note_warning(record: GameRecord, side: str, reply: Reply) -> None:
    if reply.warning and side not in record.warnings:
        record.warnings[side] = reply.warning
