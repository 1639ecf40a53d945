"""`--isolation none`: the agent runs in the monitor's own process (trusted code, fastest).

A call that returns after the time limit is a `timeout` fault (its answer is discarded),
but a call that never returns cannot be stopped here: that is what the process modes are for.
Three such late calls in a row and the game stops asking the agent until its next game, as
in the process modes (harness/core/fault_policy.py, applied by harness/engine/game.py).
"""
from __future__ import annotations

import time

from harness.agents.runtime import ERROR_REPLY, MOVES_REPLY, AgentRuntime, StrategyRuntime
from harness.core.fault_policy import FAULT_POLICY, Event

from .agent_handle import SILENT_DEFAULT, Fault, GameStart, Last, ReadyHandle, Reply, plain_reply


class _InMonitor(ReadyHandle):
    """What both in-monitor handles share: the answer is ready as soon as it is asked for."""

    reply: Reply = SILENT_DEFAULT   # the answer to the last request

    def collect(self) -> Reply:
        return self.reply

    def end_game(self) -> None:
        self.reply = SILENT_DEFAULT


class InProcessHandle(_InMonitor):
    def __init__(self, name: str, factory, hist_pair, timeout: float):
        self.name = name
        self.timeout = timeout
        self.runtime = AgentRuntime(factory, hist_pair)

    def start_game(self, start: GameStart) -> None:
        self.runtime.start_game(start.agent_seed, start.moves_per_turn, start.payoffs)

    def request(self, last: Last) -> None:
        runtime = self.runtime
        if last is not None:
            runtime.record(last[0], last[1])
        began = time.perf_counter()
        kind, text, warning = runtime.call()
        elapsed = time.perf_counter() - began
        if elapsed > self.timeout:
            self.reply = Reply(None, Fault(FAULT_POLICY.kind(Event.LATE),
                                           f"answered after {elapsed:.2f} s "
                                           f"(limit {self.timeout:g} s)"))
        elif kind == MOVES_REPLY:
            self.reply = plain_reply(text) if warning is None else Reply(text, None, warning)
        else:
            event = Event.RAISED if kind == ERROR_REPLY else Event.BAD_ANSWER
            self.reply = Reply(None, Fault(FAULT_POLICY.kind(event), text))


class BuiltinHandle(_InMonitor):
    """A built-in strategy inside the monitor: told the played moves directly, with no hist
    to build and no answer to check (it is our own code). The strategy is started by the
    same StrategyRuntime a host process runs a built-in with, so it plays alike in both."""

    def __init__(self, name: str, builtin):
        self.name = name
        self.runtime = StrategyRuntime(builtin)

    def start_game(self, start: GameStart) -> None:
        strategy = self.runtime.start_game(start.agent_seed, start.moves_per_turn,
                                           start.payoffs)
        # bound once a game: a built-in's turn is the hot path of a --isolation none run
        self._observe, self._answer = strategy.observe, strategy.answer

    def request(self, last: Last) -> None:
        if last is not None:
            self._observe(last[0], last[1])
        self.reply = plain_reply(self._answer())
