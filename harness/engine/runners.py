"""Playing a round's games: serially, many at once on one thread (agents in processes), or
on forked workers (agents in the monitor's process). Results come back in the order of the jobs, and
each game depends only on its own seed, so every runner gives the same result."""
from __future__ import annotations

import os
import resource
import threading
from collections import OrderedDict, deque
from typing import TYPE_CHECKING

from harness.core.errors import LoadError, OutOfFiles
from harness.isolation.handles.agent_handle import DefaultHandle, PollableHandle

from .crowding import Crowding
from .forked import Workers
from .game import game_steps, play_game
from .handle_waits import HandleWaits

if TYPE_CHECKING:
    from .forked import Workers

# Every host process holds seven descriptors in the monitor (its stdin, stdout and stderr,
# the game channel's two ends: harness/isolation/handles/process.py; its cgroup's CPU counter and
# its game's schedstat, which time each call: harness/isolation/own_time.py), and starting one
# briefly more; the rest of the monitor (records, threads, the sandbox's helpers) needs a few.
FDS_PER_HOST = 8
FDS_KEPT_FREE = 64


def open_file_limit() -> int:
    """Raise the soft limit on open files to the hard one (once per process) and say how
    many there may be: the monitor's own limit, never an agent's fault."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def host_cap() -> int:
    """How many agent handles may be open at once under the open-file limit."""
    return max(2, (open_file_limit() - FDS_KEPT_FREE) // FDS_PER_HOST)


class HandlePool:
    """One handle per agent, opened on first use and reused from game to game. At most
    `cap` are open at once: opening one more closes the least recently used that no game
    is using (`in_use`), so any number of agents fits in the monitor's open-file limit."""

    def __init__(self, specs, isolation, cap=None):
        if isolation.agent_packages:   # one not installed: one line, now. With none declared
            isolation.environment()    # nothing can fail, and only agents that import Python
                                       # resolve it, when opened (built-ins never: ~0.2 s)
        self.specs = {spec.name: spec for spec in specs}
        self.isolation = isolation
        self.broken: dict[str, str] = {}   # name -> why it does not load: not tried again
        self.handles: OrderedDict[str, PollableHandle] = OrderedDict()  # least recent first
        self.outputs: dict[str, list[str]] = {}   # name -> what its closed handles captured
        self.cap = cap or host_cap()
        self.in_use = set()  # names a running game holds: never closed to make room
        self.opening = 0     # handles being opened right now (on other threads)
        self.lock = threading.Lock()

    def open_all(self) -> dict[str, str]:
        """Open every agent's handle once, in parallel, so load errors are known before
        play: {name: why it does not load} for those that do not."""
        # heavy (concurrent): loaded only where used
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=8) as executor:
            list(executor.map(self.handle, self.specs))
        return {name: self.broken[name] for name in self.specs if name in self.broken}

    def output(self, name: str) -> str:
        """What the agent's handles printed, those closed so far (close() closes all)."""
        return "".join(self.outputs.get(name, []))

    def handle(self, name: str) -> PollableHandle:
        with self.lock:
            handle = self.handles.get(name)
            if handle is not None:
                self.handles.move_to_end(name)
                return handle
            evicted = self._make_room()
            self.opening += 1
        for old_name, old in evicted:
            self._retire(old_name, old)
        try:
            try:
                handle = self._open(name)
            except OutOfFiles:  # something else holds descriptors: close what is idle
                self._close_idle()
                handle = self._open(name)
        finally:
            with self.lock:
                self.opening -= 1
        with self.lock:
            self.handles[name] = handle
        return handle

    def _close_idle(self):
        with self.lock:
            idle = [(name, self.handles.pop(name)) for name in list(self.handles)
                    if name not in self.in_use]
        for name, handle in idle:
            self._retire(name, handle)

    def _make_room(self):
        """The idle handles to close so that one more fits under the cap."""
        evicted = []
        excess = len(self.handles) + self.opening + 1 - self.cap
        for name in list(self.handles):
            if excess <= 0:
                break
            if name not in self.in_use:
                evicted.append((name, self.handles.pop(name)))
                excess -= 1
        return evicted

    def _open(self, name: str) -> PollableHandle:
        # heavy (concurrent, ctypes, email): loaded only where used
        from harness.isolation.handles.opening import open_handle

        if name in self.broken:
            return DefaultHandle(name, self.broken[name])
        try:
            return open_handle(self.specs[name], self.isolation)
        except LoadError as error:
            self.broken.setdefault(name, str(error))
            return DefaultHandle(name, str(error))

    def release(self, names) -> None:
        for name in names:
            handle = self.handles.pop(name, None)
            if handle is not None:
                self._retire(name, handle)

    def close(self) -> None:
        self.release(list(self.handles))

    def _retire(self, name: str, handle: PollableHandle) -> None:
        self.outputs.setdefault(name, []).append(handle.captured_output())
        handle.close()


def play_job(pool: HandlePool, job, params):
    return play_game(pool.handle(job.a), pool.handle(job.b), job.length, job.seed, params,
                     job.round)


def phases(jobs, cap: int):
    """The games in groups, each among at most `cap` agents: [(those agents, game indices)].

    With more agents than `cap` processes fit, the agents are split into blocks of cap/2
    and every pair of blocks plays in turn, first block held while the second changes, so
    each agent's process is started about (number of blocks)/2 times a round instead of
    once per game. With few agents, one group: all of them (None: nothing to close)."""
    names = sorted({job.a for job in jobs} | {job.b for job in jobs})
    if len(names) <= cap:
        return [(None, list(range(len(jobs))))]
    size = max(1, cap // 2)
    block = {name: number // size for number, name in enumerate(names)}
    blocks = -(-len(names) // size)
    by_pair: dict[tuple[int, ...], list[int]] = {}
    for index, job in enumerate(jobs):
        pair = tuple(sorted((block[job.a], block[job.b])))
        by_pair.setdefault(pair, []).append(index)
    groups = []
    for first in range(blocks):
        for second in range(first + 1, blocks):
            pairs = [(first, second), (second, second)]
            if second == first + 1:
                pairs.append((first, first))
            indices = sorted(i for pair in pairs for i in by_pair.pop(pair, []))
            agents = set(names[first * size:(first + 1) * size])
            agents.update(names[second * size:(second + 1) * size])
            groups.append((agents, indices))
    return groups


class SerialRunner:
    def __init__(self, pool: HandlePool, params):
        self.pool = pool
        self.params = params

    def play(self, jobs, on_game=None):
        records = {}
        for agents, indices in phases(jobs, self.pool.cap):
            self._keep_only(agents)
            for index in indices:
                records[index] = play_job(self.pool, jobs[index], self.params)
                if on_game:
                    on_game(records[index])
        return [records[index] for index in range(len(jobs))]

    def _keep_only(self, agents) -> None:
        """Close the processes of agents outside the next group of games."""
        if agents is not None:
            self.pool.release([name for name in list(self.pool.handles) if name not in agents])

    def release(self, names):
        self.pool.release(names)

    def close(self):
        self.pool.close()


class PipelinedRunner(SerialRunner):
    """Agents in processes: many games at once, on one thread.

    Each agent has one process, so it plays one game at a time and up to half the agents'
    worth of games run together, as many as the machine has room for
    (harness/engine/crowding.py). While one game's agents think, other games' turns go on:
    the monitor waits on every pipe at once instead of on one game's two. Games wait in a
    queue per agent; when an agent is free, it starts its first game whose opponent is
    free too. With more agents than processes fit under the open-file limit, the round is
    played in groups of agents that fit (`phases`).
    """

    def play(self, jobs, on_game=None):
        self.on_game = on_game
        self.jobs = jobs
        self.running: dict = {}
        self.records: dict = {}
        self.busy = self.pool.in_use = set()
        try:
            for agents, indices in phases(jobs, self.pool.cap):
                self._keep_only(agents)
                self._play_group(indices)
        finally:
            self.pool.in_use = set()
        return [self.records[index] for index in range(len(jobs))]

    def _play_group(self, indices):
        # name -> its games not started, in order (a dict's keys: a game that starts leaves
        # both its agents' queues at once, so a look for the next game never passes it)
        self.waiting: dict[str, dict[int, None]] = {}
        for index in indices:
            job = self.jobs[index]
            self.waiting.setdefault(job.a, {})[index] = None
            self.waiting.setdefault(job.b, {})[index] = None
        self.to_check = deque(sorted(self.waiting))  # agents that may start a game now
        self.waits = HandleWaits()
        self.crowding = Crowding()
        self.asked: list[int] = []       # games that just asked their agents
        self.unanswered: dict[int, list] = {}   # game -> its handles not ready yet
        self.game_of: dict[int, int] = {}       # id(handle) -> the game it waits in
        done = len(self.records) + len(indices)
        while len(self.records) < done:
            self._start_games()
            if not self.running:
                raise RuntimeError("no game of the round can start")  # a bug, not a hang
            for index in self._ready_games():
                self._advance(index)

    def _start_games(self):
        while self.to_check:
            name = self.to_check.popleft()
            index = None if name in self.busy else self._next_game(name)
            if index is None:
                continue
            if not self.crowding.room_for_another(len(self.running)):
                self.to_check.appendleft(name)   # its game starts when there is room
                return
            self._start(index)

    def _next_game(self, name):
        """Its first game not started whose opponent is free."""
        for index in self.waiting[name]:
            job = self.jobs[index]
            if (job.b if job.a == name else job.a) not in self.busy:
                return index
        return None

    def _start(self, index):
        job = self.jobs[index]
        del self.waiting[job.a][index], self.waiting[job.b][index]
        self.busy.update((job.a, job.b))
        handles = (self.pool.handle(job.a), self.pool.handle(job.b))
        steps = game_steps(*handles, job.length, job.seed, self.params, job.round)
        self.running[index] = (job, steps, handles)
        self._advance(index)

    def _advance(self, index):
        job, steps, handles = self.running[index]
        try:
            next(steps)
        except StopIteration as finished:
            del self.running[index]
            for handle in handles:   # nothing of a game over stays in the poll set
                self.waits.forget(handle)
            self.busy.difference_update((job.a, job.b))
            self.to_check.extend((job.a, job.b))
            self.records[index] = finished.value
            if self.on_game:
                self.on_game(finished.value)
            return
        self.asked.append(index)

    def _ready_games(self) -> list[int]:
        """The games whose agents have both answered (or run out of time); waits on the
        pipes until there is at least one (harness/engine/handle_waits.py)."""
        ready = []
        for index in self.asked:
            unanswered = [handle for handle in self.running[index][2]
                          if not self.waits.examine(handle)]
            if unanswered:
                self.unanswered[index] = unanswered
                for handle in unanswered:
                    self.game_of[id(handle)] = index
            else:
                ready.append(index)
        self.asked.clear()
        while not ready:
            for handle in self.waits.wait():
                if id(handle) in self.game_of and self.waits.examine(handle):
                    index = self.game_of.pop(id(handle))
                    unanswered = self.unanswered[index]
                    unanswered.remove(handle)
                    if not unanswered:
                        del self.unanswered[index]
                        ready.append(index)
        return ready


_FORKED: dict = {}   # what a forked worker inherits: its pool and the game's parameters


def _forked_play(job):
    """In a worker: the game's record, and what its agents printed in it there, for the
    parent to keep (`ForkRunner.play`): a worker's own copy of a handle dies with it."""
    pool = _FORKED["pool"]
    sinks = {name: pool.handle(name).printed for name in (job.a, job.b)}
    marks = {name: (sink, sink.mark()) for name, sink in sinks.items() if sink is not None}
    record = play_job(pool, job, _FORKED["params"])
    return record, {name: sink.since(mark) for name, (sink, mark) in marks.items()}


def _own_processes():
    """In a new worker: agents that run in processes of their own (Common Lisp) get new
    ones here. The worker inherited the parent's pipes to them, and two workers writing to
    one host would mix their games."""
    pool = _FORKED["pool"]
    for name, handle in list(pool.handles.items()):
        if not handle.fork_child():
            del pool.handles[name]


class ForkRunner(SerialRunner):
    """Agents in the monitor's process: games run in forked workers, one CPU each.

    The workers are forked once, with every agent already loaded, and live for the whole
    tournament; each takes a few large batches of a round's games (fewer round trips).
    They are harness/engine/forked.py's, which a Ctrl-C, a SIGTERM or a killed monitor cannot
    leave hanging or running."""

    def __init__(self, pool: HandlePool, params, worker_count: int):
        super().__init__(pool, params)
        self.worker_count = worker_count   # --jobs; `jobs` below are the games to play
        self.workers: Workers | None = None

    def play(self, jobs, on_game=None):
        if self.workers is None:
            _FORKED.update(pool=self.pool, params=self.params)
            self.workers = Workers(self.worker_count, initializer=_own_processes)
        batch = max(1, -(-len(jobs) // (self.worker_count * 2)))
        records = []
        for record, printed in self.workers.map(_forked_play, jobs, chunksize=batch):
            for name, (text, count) in printed.items():   # in the games' order: as --jobs 1
                handle = self.pool.handles.get(name)
                sink = handle.printed if handle is not None else None
                if sink is not None:
                    sink.add(text, count)
            records.append(record)
            if on_game:
                on_game(record)
        return records

    def close(self):
        workers, self.workers = self.workers, None
        if workers is not None:
            workers.close()
        super().close()


def make_runner(pool: HandlePool, params, worker_count: int | None):
    """The runner for `--jobs` (`worker_count`; None: one per CPU)."""
    worker_count = worker_count or os.cpu_count() or 1
    if worker_count <= 1:
        return SerialRunner(pool, params)
    if pool.isolation.mode == "none":
        return ForkRunner(pool, params, worker_count)
    return PipelinedRunner(pool, params)
