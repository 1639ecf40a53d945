"""Several tournament Observers as one (the record and the progress bar, say)."""
from __future__ import annotations

from harness.engine.tournament import Observer


class Fanout(Observer):
    def __init__(self, *observers):
        self.observers = [o for o in observers if o is not None]

    def tournament_started(self, result) -> None:
        for observer in self.observers:
            observer.tournament_started(result)

    def game_finished(self, game) -> None:
        for observer in self.observers:
            observer.game_finished(game)

    def round_finished(self, state, round_result, games) -> None:
        for observer in self.observers:
            observer.round_finished(state, round_result, games)
