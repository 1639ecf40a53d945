"""Playing a round's games: serially, many at once on one thread (agents in processes), or
on forked workers (agents in the monitor's process). Results come back in the order of the jobs, and
each game depends only on its own seed, so every runner gives the same result."""
from __future__ import annotations

import os
import select
import time

from .game import game_steps, play_game
from .handles.base import DefaultHandle
from .errors import LoadError


class HandlePool:
    """One handle per agent, opened on first use and reused from game to game."""

    def __init__(self, specs, isolation, known_broken=None):
        self.specs = {spec.name: spec for spec in specs}
        self.isolation = isolation
        self.known_broken = known_broken if known_broken is not None else {}
        self.handles = {}
        self.retired = {}   # name -> [(status message, captured output)] of closed handles

    def handle(self, name):
        handle = self.handles.get(name)
        if handle is None:
            handle = self.handles[name] = self._open(name)
        return handle

    def _open(self, name):
        from .handles.opening import open_handle

        if name in self.known_broken:
            return DefaultHandle(name, self.known_broken[name])
        try:
            return open_handle(self.specs[name], self.isolation)
        except LoadError as error:
            self.known_broken.setdefault(name, str(error))
            return DefaultHandle(name, str(error))

    def release(self, names) -> None:
        for name in names:
            handle = self.handles.pop(name, None)
            if handle is not None:
                self._retire(name, handle)

    def close(self) -> None:
        self.release(list(self.handles))

    def _retire(self, name, handle):
        self.retired.setdefault(name, []).append(
            (getattr(handle, "status_message", None), handle.captured_output()))
        handle.close()


def play_job(pool: HandlePool, job, params):
    return play_game(pool.handle(job.a), pool.handle(job.b), job.length, job.seed, params,
                     job.round)


class SerialRunner:
    def __init__(self, pool: HandlePool, params):
        self.pool = pool
        self.params = params

    def play(self, jobs, on_game=None):
        records = []
        for job in jobs:
            records.append(play_job(self.pool, job, self.params))
            if on_game:
                on_game(records[-1])
        return records

    def release(self, names):
        self.pool.release(names)

    def close(self):
        self.pool.close()


class PipelinedRunner(SerialRunner):
    """Agents in processes: many games at once, on one thread.

    Each agent has one process, so it plays one game at a time and up to half the agents'
    worth of games run together. While one game's agents think, other games' turns go on:
    the monitor waits on every pipe at once instead of on one game's two.
    """

    def play(self, jobs, on_game=None):
        self.on_game = on_game
        self.queue = list(enumerate(jobs))
        self.running, self.records, self.busy = {}, {}, set()
        self.freed = True          # agents became free: games waiting for them may start
        while self.queue or self.running:
            if self.freed:
                self.freed = False
                self._start_games()
            for index in self._ready_games():
                self._advance(index)
        return [self.records[index] for index in range(len(jobs))]

    def _start_games(self):
        for entry in list(self.queue):
            index, job = entry
            if job.a in self.busy or job.b in self.busy:
                continue
            self.queue.remove(entry)
            self.busy.update((job.a, job.b))
            handles = (self.pool.handle(job.a), self.pool.handle(job.b))
            steps = game_steps(*handles, job.length, job.seed, self.params, job.round)
            self.running[index] = (job, steps, handles)
            self._advance(index)

    def _advance(self, index):
        job, steps, _handles = self.running[index]
        try:
            next(steps)
        except StopIteration as finished:
            del self.running[index]
            self.busy.difference_update((job.a, job.b))
            self.freed = True
            self.records[index] = finished.value
            if self.on_game:
                self.on_game(finished.value)

    def _ready_games(self) -> list[int]:
        """The games whose agents have both answered (or run out of time); waits on the
        pipes until there is at least one."""
        while True:
            owners, deadline, ready = {}, None, []
            for index, (_job, _steps, handles) in self.running.items():
                fds = [(fd, h) for h in handles for fd in _waiting_on(h)]
                if not fds:
                    ready.append(index)
                for fd, handle in fds:
                    owners[fd] = handle
                    deadline = min(deadline or handle.deadline, handle.deadline)
            if ready or not owners:
                return ready
            timeout = max(0.0, deadline - time.monotonic())
            readable, _, _ = select.select(list(owners), [], [], timeout + 0.001)
            for fd in readable:
                owners[fd].pump(fd)


def _waiting_on(handle) -> list[int]:
    waiting_on = getattr(handle, "waiting_on", None)
    return waiting_on() if waiting_on else []


_FORKED = {}


def _forked_play(job):
    return play_job(_FORKED["pool"], job, _FORKED["params"])


class ForkRunner(SerialRunner):
    """Agents in the monitor's process: games run in forked workers, one CPU each.

    The workers are forked once, with every agent already loaded, and live for the whole
    tournament; each takes a few large batches of a round's games (fewer round trips)."""

    def __init__(self, pool: HandlePool, params, jobs: int):
        super().__init__(pool, params)
        self.jobs = jobs
        self.workers = None

    def play(self, jobs, on_game=None):
        if self.workers is None:
            import multiprocessing

            _FORKED.update(pool=self.pool, params=self.params)
            self.workers = multiprocessing.get_context("fork").Pool(self.jobs)
        batch = max(1, -(-len(jobs) // (self.jobs * 2)))
        records = []
        for record in self.workers.imap(_forked_play, jobs, chunksize=batch):
            records.append(record)
            if on_game:
                on_game(record)
        return records

    def close(self):
        if self.workers is not None:
            self.workers.terminate()
            self.workers.join()
            self.workers = None
        super().close()


def make_runner(pool: HandlePool, params, jobs: int | None):
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1:
        return SerialRunner(pool, params)
    if pool.isolation.mode == "none":
        return ForkRunner(pool, params, jobs)
    return PipelinedRunner(pool, params)
