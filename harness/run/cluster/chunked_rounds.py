"""A round's games on a cluster: in chunks, each one task.

Rounds stay one after the other (who plays the next round depends on every score of this
one), so each round ends in a barrier: the round's last task decides when the next can
start. Chunks are small enough for a few per worker thread (the tail, where some threads
idle, is short) and big enough that a task's overhead (tens of milliseconds) and its
agents' process starts are paid for many games: a chunk is every game between two blocks
of agents (or within one), so a worker starts each of its agents once per chunk. Bigger
chunks are started first.
"""
from __future__ import annotations

import uuid

from harness.core.errors import HarnessError

from . import wire
from .connection import open_cluster, worker_name
from .shipment import pack
from .worker import play_games, release

CHUNKS_PER_THREAD = 3


def chunks(jobs, pieces: int) -> list[list[int]]:
    """The indices of `jobs` in about `pieces` chunks (at least one game each): the agents
    sorted into b blocks, one chunk per pair of blocks (b(b+1)/2 of them)."""
    names = sorted({job.a for job in jobs} | {job.b for job in jobs})
    blocks = 1
    while blocks < len(names) and blocks * (blocks + 1) // 2 < pieces:
        blocks += 1
    size = -(-len(names) // blocks) if names else 1
    block = {name: number // size for number, name in enumerate(names)}
    by_pair: dict[tuple[int, int], list[int]] = {}
    for index, job in enumerate(jobs):
        by_pair.setdefault((block[job.a], block[job.b]), []).append(index)
    return [by_pair[pair] for pair in sorted(by_pair)]


class ClusterRunner:
    """The round runner of harness.engine.runners, with a round's chunks played on a cluster.

    The monitor has already opened every agent (load errors are known, and worded, as in
    a local run); it closes them, and workers open their own copies."""

    def __init__(self, pool, settings):
        self.pool, self.settings = pool, settings
        self.run = uuid.uuid4().hex   # names this tournament's processes on the workers
        playable = [spec for name, spec in pool.specs.items() if name not in pool.broken]
        try:
            self.shipment = pack(playable)
            self.cluster = open_cluster(settings.cluster, playable, settings.isolation.mode)
        finally:
            # the monitor's own processes close: the workers play (what the agents that
            # do not load said while loading is kept, as a local run keeps it)
            pool.close()
            for name in [name for name in pool.outputs if name not in pool.broken]:
                del pool.outputs[name]

    def play(self, jobs, on_game=None):
        parts = chunks(jobs, CHUNKS_PER_THREAD * self.cluster.threads)
        worker_settings = self.settings
        tasks = []
        for indices in parts:
            part = [jobs[i] for i in indices]
            names = {name for job in part for name in (job.a, job.b)}
            broken = {name: self.pool.broken[name] for name in names
                      if name in self.pool.broken}
            tasks.append((play_games, (self.shipment.only(names), worker_settings, part,
                                       broken, self.cluster.needed, self.run), len(part)))
        records, outputs = {}, {}
        for number, answer in self.cluster.run(tasks):
            games, outputs[number] = self._checked(answer, [jobs[i] for i in parts[number]])
            for index, game in zip(parts[number], games, strict=True):
                records[index] = game
                if on_game:
                    on_game(game)
        for number in sorted(outputs):   # in chunk order, whichever finished first
            for name, output in outputs[number].items():
                self.pool.outputs.setdefault(name, []).append(output)
        return [records[index] for index in range(len(jobs))]

    def _checked(self, answer, part):
        try:
            data = answer.get("games")
            if not isinstance(data, list) or len(data) != len(part):
                raise wire.BadAnswer("not the games asked for")
            games = [wire.game_in(item, job, self.settings.game)
                     for item, job in zip(data, part, strict=True)]
            outputs = wire.outputs_in(answer.get("outputs", {}),
                                      {name for job in part for name in (job.a, job.b)})
        except wire.BadAnswer as bad:
            raise HarnessError(f"worker {worker_name(answer)}: an answer that is {bad}") \
                from None
        return games, outputs

    def release(self, names) -> None:
        pass   # nothing of theirs is open in the monitor

    def close(self) -> None:
        """Close the agents' processes on every worker, keeping what they printed."""
        try:
            answers = self.cluster.client.run(release, self.run)
        except Exception:  # workers gone: their processes went with them
            answers = {}
        finally:
            self.cluster.close()
        names = set(self.pool.specs)
        for where in sorted(answers):
            try:
                said = wire.outputs_in(wire.loads(answers[where]).get("outputs", {}), names)
            except wire.BadAnswer:
                continue   # only what agents printed: nothing of the result
            for name, output in said.items():
                self.pool.outputs.setdefault(name, []).append(output)
