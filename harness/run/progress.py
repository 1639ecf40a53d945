"""Progress of long runs on stderr: games done of (at most) the total, elapsed time and,
once the run so far says enough, an estimate of what is left (called one: it is not a
bound). On a terminal a bar redrawn in place; elsewhere (a log, CI, `nohup`) a line per
round and at most one a minute in between, so a run with hanging agents is never silent
for long. None with --quiet, and never on stdout (a --format json result stays JSON).

The total is an upper bound: elimination drops at least one agent per round (more when
several tie, and an all-tie ends the run), so the bound counts one drop per round.
"""
from __future__ import annotations

import os
import sys
import time

from harness.core.fault_policy import FAULT_POLICY
from harness.core.safe_text import line as safe_line
from harness.engine.tournament import Observer, goes_on


def wanted(quiet: bool) -> bool:
    return not quiet


def display(stream=None) -> Bar | Lines:
    """A bar on a terminal, lines anywhere else."""
    stream = stream or sys.stderr
    return Bar(stream) if hasattr(stream, "isatty") and stream.isatty() else Lines(stream)


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

    def draw(self, fraction: float, text: str, force: bool = False,
             milestone: bool = False) -> None:
        now = time.monotonic()
        if not (force or milestone) and now - self.drawn_at < 0.1:
            return
        self.drawn_at = now

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


class Lines:
    """Where no bar can be redrawn: a whole line for each milestone (a round done, the last
    replicate) and, in between, one a minute at most."""

    EVERY = 60.0   # seconds between lines that mark no milestone

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.began = self.written_at = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def draw(self, fraction: float, text: str, force: bool = False,
             milestone: bool = False) -> None:
        now = time.monotonic()
        if not milestone and now - self.written_at < self.EVERY:
            return
        self.written_at = now

        self.stream.write(f"pdharness: {safe_line(text)}\n")
        self.stream.flush()

    def clear(self) -> None:
        pass


def _columns(stream) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, AttributeError, ValueError):
        return 80


def _round_robin(agents: int) -> int:
    return agents * (agents - 1) // 2


class TournamentProgress(Observer):
    def __init__(self, settings, stream=None):
        self.settings = settings
        self.bar = display(stream)
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
        if not goes_on(state, self.settings):   # the last round: no bar, but a log says it
            if isinstance(self.bar, Lines):
                self.bar.draw(1.0, f"round {round_result.number} done: games {self.done}/"
                                   f"{self.done}  {clock(self.bar.elapsed())} elapsed",
                              milestone=True)
            return
        self._draw(done_round=round_result.number)

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

    def _draw(self, force: bool = False, done_round: int | None = None) -> None:
        """DONE_ROUND: the round that just ended (a milestone: a log gets its line)."""
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
        if done_round is not None and isinstance(self.bar, Lines):
            text = f"round {done_round} done: {text}"
        self.bar.draw(self.done / total if total else 1.0, text, force,
                      milestone=done_round is not None)

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
        self.bar = display(stream)

    def __call__(self, done: int, total: int) -> None:
        text = f"{self.label} {done}/{total}  {clock(self.bar.elapsed())} elapsed"
        if done and done < total:
            text += f"  ~{clock(self.bar.elapsed() / done * (total - done))} left"
        self.bar.draw(done / total if total else 1.0, text, force=True,
                      milestone=done == total > 0)

    def close(self) -> None:
        self.bar.clear()
