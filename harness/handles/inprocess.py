"""`--isolation none`: the agent runs in the monitor's own process (trusted code, fastest).

A call that returns after the time limit is a `timeout` fault (its answer is discarded),
but a call that never returns cannot be stopped here: that is what the process modes are for.
"""
from __future__ import annotations

import time

from ..runtime import ERROR_REPLY, MOVES_REPLY, AgentRuntime
from .base import EXCEPTION, INVALID, TIMEOUT, Fault, GameStart, Reply


class InProcessHandle:
    def __init__(self, name: str, factory, hist_pair, timeout: float, share_hist=False):
        self.name = name
        self.timeout = timeout
        self.runtime = AgentRuntime(factory, hist_pair, share_hist=share_hist)
        self.reply: Reply | None = None

    def start_game(self, start: GameStart) -> None:
        self.runtime.start_game(start.agent_seed, start.moves_per_turn, start.payoffs)

    def request(self, last) -> None:
        runtime = self.runtime
        if last is not None:
            runtime.record(last[0], last[1])
        began = time.perf_counter()
        kind, text, warning = runtime.call()
        elapsed = time.perf_counter() - began
        if elapsed > self.timeout:
            self.reply = Reply(None, Fault(TIMEOUT, f"answered after {elapsed:.2f} s "
                                                    f"(limit {self.timeout:g} s)"))
        elif kind == MOVES_REPLY:
            self.reply = Reply(text, None, warning)
        else:
            self.reply = Reply(None, Fault(EXCEPTION if kind == ERROR_REPLY else INVALID, text))

    def collect(self) -> Reply:
        return self.reply

    def end_game(self) -> None:
        self.reply = None

    def close(self) -> None:
        pass

    def captured_output(self) -> str:
        return ""
