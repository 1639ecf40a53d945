"""A progress bar on stderr for long runs: games done of (at most) the total, elapsed time
and, once the run so far says enough, an estimate of what is left (called one: it is not
a bound). Shown only when stderr is a terminal and not --quiet.

The total is an upper bound: elimination drops at least one agent per round (more when
several tie, and an all-tie ends the run), so the bound counts one drop per round.
"""
from __future__ import annotations

import sys
import time

from harness.core.fault_policy import FAULT_POLICY
from harness.engine.tournament import Observer


def wanted(quiet: bool, stream=None) -> bool:
    stream = stream or sys.stderr
    return not quiet and hasattr(stream, "isatty") and stream.isatty()


def clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Bar:
    """One line, redrawn in place at most ten times a second."""

    def __init__(self, stream=None, width: int = 16):
        self.stream = stream or sys.stderr
        self.width = width
        self.began = time.monotonic()
        self.drawn_at = 0.0
        self.shown = False

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def draw(self, fraction: float, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.drawn_at < 0.1:
            return
        self.drawn_at = now
        from harness.core.safe_text import line as safe_line

        filled = int(self.width * min(1.0, max(0.0, fraction)))
        line = f"[{'#' * filled}{'-' * (self.width - filled)}] {safe_line(text)}"
        columns = _columns(self.stream)
        self.stream.write("\r" + line[:columns - 1].ljust(columns - 1))
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (_columns(self.stream) - 1) + "\r")
            self.stream.flush()
            self.shown = False


def _columns(stream) -> int:
    import os

    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, AttributeError, ValueError):
        return 80


def _round_robin(agents: int) -> int:
    return agents * (agents - 1) // 2


class TournamentProgress(Observer):
    def __init__(self, settings, stream=None):
        self.settings = settings
        self.bar = Bar(stream)
        self.mean_length = (settings.length.low + settings.length.high) / 2
        self.done = self.turns_done = self.round_done = 0
        self.requests = 0      # HTTP requests to language models, in the games finished
        self.remaining = 0
        self.round = self.first_round = 1

    def tournament_started(self, result) -> None:
        out = {name for r in result.rounds for name in r.dropped}
        skipped = {e.name for e in result.entrants
                   if not FAULT_POLICY.plays_from_start(e.status, self.settings.disqualify_broken)}
        self.remaining = len([e for e in result.entrants
                              if e.name not in out and e.name not in skipped])
        self.round = self.first_round = len(result.rounds) + 1
        self._draw(force=True)

    def game_finished(self, game) -> None:
        self.done += 1
        self.round_done += 1
        self.turns_done += game.length
        self.current_length = game.length
        if game.talk:
            self.requests += sum(call["tries"] or 1 for talk in game.talk.values()
                                 for call in talk["calls"])
        self._draw()

    def round_finished(self, state, round_result, games) -> None:
        self.remaining = len(state.remaining)
        self.round = state.next_round
        self.round_done = 0
        self._draw(force=True)

    def close(self) -> None:
        self.bar.clear()

    def _future_games(self) -> list[int]:
        """Games of each round still to come (one drop per round, up to --max-rounds)."""
        rounds, agents, number = [], self.remaining - 1, self.round + 1
        limit = self.settings.max_rounds
        while agents >= 2 and (limit is None or number <= limit):
            rounds.append(_round_robin(agents))
            agents, number = agents - 1, number + 1
        return rounds

    def _draw(self, force: bool = False) -> None:
        if self.remaining < 2:
            return
        in_round = _round_robin(self.remaining)
        left_now = max(0, in_round - self.round_done)
        future = sum(self._future_games())
        total = self.done + left_now + future
        text = (f"games {self.done}/{'≤' if future else ''}{total} "
                f"(round {self.round}: {self.round_done}/{in_round})  "
                f"{clock(self.bar.elapsed())} elapsed")
        if self.requests:
            text += f"  model requests {self.requests}"
        if self.turns_done and self._estimate_holds(total):
            per_turn = self.bar.elapsed() / self.turns_done
            length_now = getattr(self, "current_length", self.mean_length)
            left = per_turn * (left_now * length_now + future * self.mean_length)
            text += f"  est. {clock(left)} left"
        self.bar.draw(self.done / total if total else 1.0, text, force)

    def _estimate_holds(self, total: int) -> bool:
        """Whether the time so far says much about the time to come: not before a whole
        round (every agent's speed, a hanging one's included) or a quarter of the games
        at most still to play. Before that no estimate is shown rather than a wrong one
        (an early "0:10 left" for a run that took 7 minutes)."""
        return self.round > self.first_round or self.done >= total / 4


class CountProgress:
    """Progress of a fixed number of whole tasks (replicates)."""

    def __init__(self, label: str, stream=None):
        self.label = label
        self.bar = Bar(stream)

    def __call__(self, done: int, total: int) -> None:
        text = f"{self.label} {done}/{total}  {clock(self.bar.elapsed())} elapsed"
        if done:
            text += f"  ~{clock(self.bar.elapsed() / done * (total - done))} left"
        self.bar.draw(done / total if total else 1.0, text, force=True)

    def close(self) -> None:
        self.bar.clear()
