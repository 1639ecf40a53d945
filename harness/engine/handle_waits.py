"""Waiting on many agent handles at once, for the pipelined runner (harness/engine/runners.py).

A round runs up to half its agents' games together, and every wake-up of the monitor
answers about one call. Rebuilding the poll set from every running game at each wake-up
cost the monitor ~100 us a call with 20 games running: here a handle's
descriptors are registered when it is first asked and changed only when what it waits on
changes, deadlines wait in a heap, and a wake-up touches only the handles it concerns.

A handle's deadline moves with every request (a second later, as a rule), so the heap is
not told each time: a handle has one live entry there, replaced by an earlier deadline
only. When a live entry comes due, its handle is due if its deadline has come too, and
is queued again at its deadline if that moved later (a wake-up a time limit, not a call).

A handle whose answer is ready is *parked*: its descriptors leave the poll set (the
kernel scans every polled descriptor at every poll, ~0.3 us each, and what comes for an
answered handle is read by its next request, which reads its pipe first), but not the
bookkeeping, so asked again (next turn, the same pipes) it is polled again by a few
`register` calls, without working out who owns what anew. The runner forgets both
handles when their game ends.
"""
from __future__ import annotations

import heapq
import itertools
import select
import time


class HandleWaits:
    def __init__(self):
        self.poller = select.poll()
        self.events: dict[int, int] = {}           # fd -> the events registered for it
        self.owners: dict[int, list] = {}          # fd -> the handles (waiting or parked)
        self.watched: dict[int, tuple] = {}        # id(handle) -> (handle, {fd: events})
        self.parked: set[int] = set()              # id(handle): answered, not polled
        self.deadlines: list = []                  # heap of (deadline, n, handle)
        self.latest: dict[int, float] = {}         # id(handle) -> its deadline, if waiting
        self.queued: dict[int, tuple] = {}         # id(handle) -> (deadline, n): live entry
        self.order = itertools.count()

    def examine(self, handle) -> bool:
        """Look at a handle again (just asked, woken or due): True when its answer is
        ready to collect, and nothing of it is waited on any more."""
        wanted = handle.waiting_on()
        key = id(handle)
        if not wanted:
            entry = self.watched.get(key)
            if entry is not None and key not in self.parked:
                self.parked.add(key)
                self._sync(entry[1], False)
            self.latest.pop(key, None)   # what is left of it in the heap is skipped
            return True
        entry = self.watched.get(key)
        if entry is None or entry[1] != wanted:
            self.parked.discard(key)
            self._rewatch(handle, entry[1] if entry is not None else {}, wanted)
        elif key in self.parked:
            self.parked.discard(key)
            self._sync(wanted, True)
        deadline = self.latest[key] = handle.deadline
        queued = self.queued.get(key)
        if queued is None or deadline < queued[0]:   # later: seen when the entry is due
            entry = (deadline, next(self.order), handle)
            heapq.heappush(self.deadlines, entry)
            self.queued[key] = entry[:2]
        return False

    def forget(self, handle) -> None:
        """Its game is over: nothing of it stays registered."""
        entry = self.watched.get(id(handle))
        if entry is not None:
            self._rewatch(handle, entry[1], {})
        self.latest.pop(id(handle), None)

    def wait(self) -> list:
        """Until an event on a watched descriptor (given to its handles) or a deadline:
        the handles to examine again. It always polls (at most 1 ms when a deadline has
        passed), so a handle that still waits once due cannot keep its pipes unread."""
        deadlines = self.deadlines
        parked = self.parked
        while True:
            self._drop_dead_entries()
            timeout = None
            if deadlines:
                timeout = max(0.0, deadlines[0][0] - time.monotonic()) * 1000 + 1
            touched = {}
            woken = self.poller.poll(timeout)
            for fd, events in woken:
                for handle in self.owners.get(fd, ()):
                    key = id(handle)
                    if key in parked:   # a shared descriptor: another handle waits on it
                        continue
                    handle.pump(fd, events)
                    touched[key] = handle
            if deadlines and deadlines[0][0] <= time.monotonic():
                for handle in self._due(time.monotonic()):
                    touched[id(handle)] = handle
            if touched or woken:   # else a deadline moved later woke it: wait on
                return list(touched.values())

    def _drop_dead_entries(self) -> None:
        """Entries at the top of the heap that are no handle's live one, or whose handle
        no longer waits, go: the next timeout is a waiting handle's."""
        deadlines, queued, latest = self.deadlines, self.queued, self.latest
        while deadlines:
            deadline, number, handle = deadlines[0]
            key = id(handle)
            live = queued.get(key)
            if live is not None and live[1] == number:
                if key in latest:
                    return
                del queued[key]
            heapq.heappop(deadlines)

    def _due(self, now: float) -> list:
        """The waiting handles whose deadline has come (their entries are taken); those
        whose deadline moved later are queued again at it."""
        due = []
        deadlines, queued, latest = self.deadlines, self.queued, self.latest
        while deadlines and deadlines[0][0] <= now:
            _, number, handle = heapq.heappop(deadlines)
            key = id(handle)
            live = queued.get(key)
            if live is None or live[1] != number:
                continue   # replaced by an earlier one
            del queued[key]
            deadline = latest.get(key)
            if deadline is None:
                continue   # it no longer waits
            if deadline <= now:
                del latest[key]
                due.append(handle)
            else:
                entry = (deadline, next(self.order), handle)
                heapq.heappush(deadlines, entry)
                queued[key] = entry[:2]
        return due

    def _rewatch(self, handle, before: dict, wanted: dict) -> None:
        key = id(handle)
        for fd in before:
            owners = self.owners[fd]
            owners.remove(handle)
            if not owners:
                del self.owners[fd]
        if wanted:
            self.watched[key] = (handle, dict(wanted))
            for fd in wanted:
                self.owners.setdefault(fd, []).append(handle)
        else:
            self.watched.pop(key, None)
            self.parked.discard(key)
        for fd in {*before, *wanted}:
            self._register(fd)

    def _sync(self, fds: dict, waiting: bool) -> None:
        """A handle parked (`waiting` False) or asked again: its descriptors registered
        for the handles that wait on them."""
        owners, poller, registered = self.owners, self.poller, self.events
        for fd, events in fds.items():
            if len(owners[fd]) > 1:   # shared (a REPL's pipes): worked out in full
                self._register(fd)
            elif waiting:
                poller.register(fd, events)
                registered[fd] = events
            elif fd in registered:
                poller.unregister(fd)
                del registered[fd]

    def _register(self, fd: int) -> None:
        events = 0
        for owner in self.owners.get(fd, ()):
            key = id(owner)
            if key not in self.parked:
                events |= self.watched[key][1][fd]
        if events == self.events.get(fd, 0):
            return
        if events:
            self.poller.register(fd, events)   # registers or modifies
            self.events[fd] = events
        else:
            self.poller.unregister(fd)
            del self.events[fd]
