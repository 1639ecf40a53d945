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
import subprocess
import sys
import time
from functools import partial

import pytest

from harness.agents.specs import file_spec
from harness.isolation.handles.opening import Isolation, open_handle
from harness.isolation.own_time import CallClock
from harness.isolation.process_tree import children


def interrupted_at(opcode: int, call, modules: tuple[str, ...]) -> bool:
    """Run `call` with KeyboardInterrupt raised at its `opcode`-th bytecode run in files
    ending with one of `modules`; whether it was interrupted (else it ran to its end)."""
    counted = 0

    def each_opcode(frame, event, arg):
        nonlocal counted
        if event == "opcode":
            counted += 1
            if counted == opcode:
                raise KeyboardInterrupt
        return each_opcode

    def each_call(frame, event, arg):
        if frame.f_code.co_filename.endswith(modules):
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
    host = subprocess.Popen(["sh", "-c", "sleep 600 & wait"])
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
                                     ("own_time.py", "descriptors.py"))
            closes_no_other_descriptor(clock.close)   # what the stop's cleanup does
            if not stopped:
                break
        assert opcode > 50   # the sweep went through the clock's code
    finally:
        host.kill()
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
