"""A Ctrl-C closes nothing twice (harness/isolation/descriptors.py).

Python raises the monitor's KeyboardInterrupt when a call returns, so it can land between
`os.close(fd)` and the line that forgets `fd`; the stop's cleanup then closed the number
again: EBADF, which once ended a stopped run as an internal error (exit 70), or, once the
number was reused, another file's descriptor. Here the interrupt is raised at every
bytecode in turn, as the handler raises it, and the cleanup that follows must raise
nothing and leave every descriptor opened since alone.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from functools import partial

import pytest

from harness.agents.specs import file_spec
from harness.engine.forked import Workers
from harness.isolation.handles.opening import Isolation, open_handle
from harness.isolation.own_time import CallClock
from harness.isolation.process_tree import children
from harness.isolation.spawner import popen


def interrupted_at(opcode: int, call, where: tuple[str, ...]) -> bool:
    """Run `call` with KeyboardInterrupt raised at its `opcode`-th bytecode run in code
    `where` names ("file.py:" for a file's, "file.py:Class.method" for one function's);
    whether it was interrupted (else it ran to its end)."""
    counted = 0

    def each_opcode(frame, event, arg):
        nonlocal counted
        if event == "opcode":
            counted += 1
            if counted == opcode:
                raise KeyboardInterrupt
        return each_opcode

    def each_call(frame, event, arg):
        code = frame.f_code
        if any(part in f"{code.co_filename}:{code.co_qualname}" for part in where):
            frame.f_trace_opcodes = True
            return each_opcode
        return None

    sys.settrace(each_call)
    try:
        call()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def closes_no_other_descriptor(cleanup) -> None:
    """`cleanup` raises nothing, and closes no descriptor opened before it (pipes that
    take the numbers a close before it freed: a second close of one would close them)."""
    pipes = [os.pipe() for _ in range(4)]
    try:
        cleanup()
        for fds in pipes:
            for fd in fds:
                os.fstat(fd)   # OSError (EBADF) if the cleanup closed it
    finally:
        for fds in pipes:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass


def next_games_call(clock) -> None:
    """A new game's first call: the old game's counters closed, the new one's opened."""
    clock.start(2)
    clock.at_deadline()


def test_a_ctrl_c_anywhere_in_a_call_clocks_new_game_closes_nothing_twice():
    # a host with a game's process below it: the clock opens that process's counters
    host = subprocess.Popen(["sh", "-c", "sleep 600 & wait"], start_new_session=True)
    try:
        give_up = time.monotonic() + 60   # not a measurement: a guard against hanging
        while not children(host.pid):
            assert time.monotonic() < give_up, "the game's process never started"
            time.sleep(0.01)
        opcode = 0
        while True:
            opcode += 1
            clock = CallClock(host.pid, f"/proc/{host.pid}/stat")
            clock.start(1)   # holds the game's schedstat open
            stopped = interrupted_at(opcode, partial(next_games_call, clock),
                                     ("/own_time.py:", "/descriptors.py:"))
            closes_no_other_descriptor(clock.close)   # what the stop's cleanup does
            if not stopped:
                break
        assert opcode > 50   # the sweep went through the clock's code
    finally:
        os.killpg(host.pid, signal.SIGKILL)   # the game's process too
        host.wait()


@pytest.mark.slow   # a real host
def test_a_hosts_pipes_closed_again_close_nothing_else(tmp_path):
    agent = tmp_path / "Steady.py"
    agent.write_text('def Steady(hist, score):\n    return ["C", "C", "C"]\n',
                     encoding="utf-8")
    handle = open_handle(file_spec(agent), Isolation("process", 10))
    host = handle.host
    handle.close()
    closes_no_other_descriptor(host.close_pipes)
    closes_no_other_descriptor(host.kill)
    closes_no_other_descriptor(handle.close)


def test_a_ctrl_c_anywhere_in_closing_forked_workers_kills_and_waits_for_nothing_twice():
    opcode = 0
    while True:
        opcode += 1
        workers = Workers(2)
        pids = list(workers.pids)
        stopped = interrupted_at(opcode, workers.close, ("/forked.py:",))
        workers.close()   # the runner's own close after the stop: raises nothing
        for pid in pids:   # the ones the interrupted close let go of: ended here
            try:
                if os.waitpid(pid, os.WNOHANG) == (0, 0):   # not reaped: still ours
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
            except ChildProcessError:
                pass   # reaped by the close
        if not stopped:
            break
    assert opcode > 10   # the sweep went through the close


def test_a_ctrl_c_while_a_host_starts_ends_the_process_it_started():
    """The start is let finish (its descriptors are closed by the cleanup that follows,
    so not while they are being handed down), and the process it made is ended."""
    before = children_of_every_thread()
    read_end, write_end = os.pipe()
    try:
        stopped = interrupted_at(1, partial(popen, ["sleep", "600"], pass_fds=(write_end,)),
                                 ("futures/_base.py:Future.result",))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert stopped
    popen(["true"]).wait()   # the spawner starts in order: the interrupted start is over
    assert children_of_every_thread() - before == set()   # killed and reaped


def children_of_every_thread() -> set[int]:
    """This process's children, whichever thread started them (the kernel lists each
    thread's own: the spawner's are not the main thread's)."""
    found: set[int] = set()
    for thread in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{thread}/children", encoding="ascii") as listed:
                found.update(int(pid) for pid in listed.read().split())
        except FileNotFoundError:
            pass   # the thread ended meanwhile
    return found


def test_a_start_that_fails_is_its_own_error_not_a_stop(tmp_path):
    with pytest.raises(FileNotFoundError):
        popen([str(tmp_path / "no-such-program")])
