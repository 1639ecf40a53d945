"""Playing a round's games: serially, on threads (agents in processes), or on forked
workers (agents in the monitor's process). Results come back in the order of the jobs, and
each game depends only on its own seed, so every runner gives the same result."""
from __future__ import annotations

import os
import threading

from .game import play_game
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
        self.pools = [pool]
        self.params = params

    def play(self, jobs, on_game=None):
        records = []
        for job in jobs:
            records.append(play_job(self.pools[0], job, self.params))
            if on_game:
                on_game(records[-1])
        return records

    def release(self, names):
        for pool in self.pools:
            pool.release(names)

    def close(self):
        for pool in self.pools:
            pool.close()


class ThreadRunner(SerialRunner):
    """Agents live in processes, so threads mostly wait on pipes: one pool per thread."""

    def __init__(self, pool: HandlePool, params, jobs: int):
        super().__init__(pool, params)
        self.jobs = jobs
        self.local = threading.local()
        self.lock = threading.Lock()
        self.free = [pool]

    def _pool(self):
        pool = getattr(self.local, "pool", None)
        if pool is None:
            with self.lock:
                if self.free:
                    pool = self.free.pop()
                else:
                    first = self.pools[0]
                    pool = HandlePool(first.specs.values(), first.isolation, first.known_broken)
                    self.pools.append(pool)
            self.local.pool = pool
        return pool

    def play(self, jobs, on_game=None):
        from concurrent.futures import ThreadPoolExecutor

        def one(job):
            record = play_job(self._pool(), job, self.params)
            if on_game:
                with self.lock:
                    on_game(record)
            return record

        with ThreadPoolExecutor(max_workers=self.jobs) as executor:
            return list(executor.map(one, jobs))


_FORKED = {}


def _forked_play(job):
    return play_job(_FORKED["pool"], job, _FORKED["params"])


class ForkRunner(SerialRunner):
    """Agents in the monitor's process: games run in forked workers, one CPU each."""

    def __init__(self, pool: HandlePool, params, jobs: int):
        super().__init__(pool, params)
        self.jobs = jobs

    def play(self, jobs, on_game=None):
        import multiprocessing

        _FORKED.update(pool=self.pools[0], params=self.params)
        context = multiprocessing.get_context("fork")
        chunk = max(1, len(jobs) // (self.jobs * 4))
        with context.Pool(self.jobs) as workers:
            records = []
            for record in workers.imap(_forked_play, jobs, chunksize=chunk):
                records.append(record)
                if on_game:
                    on_game(record)
        return records


def make_runner(pool: HandlePool, params, jobs: int | None):
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1:
        return SerialRunner(pool, params)
    if pool.isolation.mode == "none":
        return ForkRunner(pool, params, jobs)
    return ThreadRunner(pool, params, jobs)
