"""The pipelined runner's waiting (harness/engine/handle_waits.py): registrations kept across
wake-ups must always be exactly what the waiting handles want, and a wake-up must reach
every handle an event or a deadline concerns. Real pipes, handles that want what the test
says."""
from __future__ import annotations

import os
import select
import time

import pytest
from hypothesis import given, settings, strategies as st

from harness.engine.handle_waits import HandleWaits


class Handle:
    """Wants what it is told; records what it is pumped with."""

    def __init__(self, deadline):
        self.wanted: dict[int, int] = {}
        self.deadline = deadline
        self.pumped: list[tuple[int, int]] = []

    def waiting_on(self):
        return self.wanted

    def pump(self, fd, events):
        self.pumped.append((fd, events))


@pytest.fixture
def pipe():
    """A real pipe (read end, write end), closed after the test."""
    ends = os.pipe()
    yield ends
    for fd in ends:
        os.close(fd)


def waiting(waits: HandleWaits, deadline: float, fd: int) -> Handle:
    """A handle that waits to read `fd` until `deadline`, examined once: not ready."""
    handle = Handle(deadline)
    handle.wanted = {fd: select.POLLIN}
    assert not waits.examine(handle)
    return handle


def registered_as_wanted(waits: HandleWaits, handles, parked) -> None:
    """What is polled is what the waiting handles want, nothing else; what is kept for
    each descriptor is who waits on it and who last did (parked, answered since)."""
    expected: dict[int, int] = {}
    holders: dict[int, list[int]] = {}
    for handle in handles:
        for fd, events in handle.wanted.items():
            expected[fd] = expected.get(fd, 0) | events
        for fd in parked.get(id(handle), handle.wanted):
            holders.setdefault(fd, []).append(id(handle))
    assert waits.events == expected
    assert {fd: sorted(map(id, owners)) for fd, owners in waits.owners.items()} == {
        fd: sorted(ids) for fd, ids in holders.items()}


wants = st.dictionaries(st.integers(0, 3), st.sampled_from([select.POLLIN, select.POLLOUT,
                                                            select.POLLIN | select.POLLOUT]),
                        max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), wants), max_size=25))
def test_what_is_registered_is_always_what_the_waiting_handles_want(steps):
    pipes = [os.pipe() for _ in range(4)]
    fds = [read for read, _write in pipes]
    try:
        waits = HandleWaits()
        handles = [Handle(time.monotonic() + 60) for _ in range(3)]
        parked: dict[int, dict] = {}   # id -> what it last wanted, registered still
        for which, wanted in steps:   # the handle now wants these (of the four pipes)
            handle = handles[which]
            before = parked.pop(id(handle), handle.wanted)
            handle.wanted = {fds[slot]: events for slot, events in wanted.items()}
            assert waits.examine(handle) == (not handle.wanted)
            if not handle.wanted and before:
                parked[id(handle)] = before
            registered_as_wanted(waits, handles, parked)
        for handle in handles:   # its game is over
            waits.forget(handle)
        assert not waits.events and not waits.owners and not waits.watched
    finally:
        for read, write in pipes:
            os.close(read)
            os.close(write)


def test_a_wake_up_pumps_every_handle_on_the_descriptor_and_returns_the_due_ones(pipe):
    read, write = pipe
    other_read, other_write = os.pipe()
    try:
        waits = HandleWaits()
        first = waiting(waits, time.monotonic() + 60, read)
        second = waiting(waits, time.monotonic() + 60, read)
        late = waiting(waits, time.monotonic() - 1, other_read)   # its deadline has passed
        assert waits.wait() == [late]     # due before anything is written
        os.write(write, b"x")
        woken = waits.wait()
        assert {id(h) for h in woken} == {id(first), id(second)}
        assert first.pumped and second.pumped and not late.pumped
    finally:
        os.close(other_read)
        os.close(other_write)


def test_a_deadline_moved_later_is_waited_for_anew(pipe):
    waits = HandleWaits()
    handle = waiting(waits, time.monotonic() + 0.05, pipe[0])
    handle.deadline = time.monotonic() + 0.1   # time given back before it was due
    assert not waits.examine(handle)
    assert waits.wait() == [handle]            # once, at the later deadline
    assert time.monotonic() >= handle.deadline


def test_an_answered_handle_is_not_polled_and_asked_again_waits_as_before(pipe):
    """A parked handle's pipes leave the poll set (what comes for it then is read by its
    next request) but not the bookkeeping: asked again, they are polled again at once."""
    read, write = pipe
    waits = HandleWaits()
    handle = waiting(waits, time.monotonic() + 60, read)
    wanted = handle.wanted
    handle.wanted = {}
    assert waits.examine(handle)            # answered: parked
    assert waits.events == {} and waits.owners == {read: [handle]}
    os.write(write, b"x")                   # something comes while it is parked
    handle.wanted = wanted
    assert not waits.examine(handle)        # asked again
    assert waits.events == {read: select.POLLIN}
    assert waits.wait() == [handle] and handle.pumped == [(read, select.POLLIN)]
    waits.forget(handle)                    # its game is over
    assert not waits.events and not waits.owners and not waits.watched
