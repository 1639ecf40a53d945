"""A handle that plays back what a record says an agent intended: how a resume and a
cluster's answer are checked, by playing the game again from the moves (flips and scores
are the monitor's own)."""
from __future__ import annotations

from .agent_handle import ReadyHandle, Reply


def replay_handle(name: str, intended):
    """An agent handle that intends what the record says the agent intended."""
    class Replay(ReadyHandle):
        def __init__(self):
            self.name, self.moves = name, iter(intended)

        def start_game(self, start) -> None:
            pass

        def request(self, last) -> None:
            pass

        def collect(self) -> Reply:
            return Reply(next(self.moves))

        def end_game(self) -> None:
            pass

    return Replay()
