"""A call's time limit counts the agent's own time, not the time its process waited for a
CPU that other programs held (harness/isolation/own_time.py).

Made to happen, not waited for: the test pins itself, and so the agent's host, to one CPU,
and runs BUSY busy loops there beside it, so the agent gets about 1/(BUSY+1) of that CPU.
An honest agent that needs NEED seconds of CPU then takes several times the limit in wall
time, and must still answer; an agent that sleeps, or loops forever, still times out.
Real hosts, Python and SBCL, under `process` and `sandbox`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager

import pytest

from harness.agents.specs import file_spec
from harness.core.rules import Payoffs
from harness.isolation.handles.agent_handle import GameStart
from harness.isolation.handles.opening import Isolation, open_handle
from harness.isolation.own_time import OWN_TIME_CAP

pytestmark = pytest.mark.slow  # hosts, and a loaded CPU

LIMIT = 0.5   # seconds per call: at most OWN_TIME_CAP times that in all
NEED = 0.05   # seconds of CPU the honest agent uses per call: a tenth of the limit
BUSY = 15     # busy loops beside it: (BUSY + 1) * NEED is well over the limit, and well
              # under the cap even if other programs load the machine as much again

AGENTS = {
    ("python", "honest"): ("NeedsCpu.py", f'''import time


def NeedsCpu(hist, score):
    start = time.process_time()
    while time.process_time() - start < {NEED}:
        pass
    return ["C", "C", "C"]
'''),
    ("lisp", "honest"): ("NeedsCpu.lisp", f'''(defun NeedsCpu (hist score)
  (declare (ignore hist score))
  (let ((end (+ (get-internal-run-time)
                (round (* {NEED} internal-time-units-per-second)))))
    (loop while (< (get-internal-run-time) end)))
  (list 'C 'C 'C))
'''),
    ("python", "sleeps"): ("Sleeps.py", '''import time


def Sleeps(hist, score):
    time.sleep(3600)
    return ["C", "C", "C"]
'''),
    ("python", "loops"): ("Loops.py", '''def Loops(hist, score):
    while True:
        pass
'''),
    # its own busy children keep its process waiting: no time is given back for that
    ("python", "crowds itself"): ("SelfCrowder.py", f'''import os
import time


def SelfCrowder(hist, score):
    for _ in range(2):
        if os.fork() == 0:
            while True:
                pass
    start = time.process_time()
    while time.process_time() - start < {LIMIT / 2}:
        pass
    return ["C", "C", "C"]
'''),
    ("python", "dies"): ("Dies.py", '''import os


def Dies(hist, score):
    os._exit(3)
'''),
    ("lisp", "loops"): ("Loops.lisp", '''(defun Loops (hist score)
  (declare (ignore hist score))
  (loop))
'''),
}


@pytest.fixture(params=["process", "sandbox"])
def mode(request):
    if request.param == "sandbox":
        request.getfixturevalue("sandboxed")
    return request.param


@contextmanager
def crowded_cpu(busy=BUSY):
    """This process and what it starts run on one CPU, beside `busy` busy loops there.

    Every thread is pinned, not just this one: hosts are started from a long-lived spawner
    thread (harness/isolation/sandbox.popen), which keeps the affinity it had when an
    earlier test made it, and a host left on every CPU would not be crowded at all."""
    everywhere = os.sched_getaffinity(0)
    _pin_every_thread({min(everywhere)})
    # each in a session of its own, as other programs are: the kernel shares a CPU
    # between sessions (autogroups) before it shares it between their processes
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                              start_new_session=True)
             for _ in range(busy)]
    try:
        yield min(everywhere)
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
        _pin_every_thread(everywhere)


def _pin_every_thread(cpus):
    for thread in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(thread), cpus)
        except OSError:   # it ended meanwhile
            pass


def first_reply(tmp_path, language, behaviour, mode, busy=BUSY):
    """The agent's reply to its first call, its host started on the crowded CPU."""
    if language == "lisp":
        from conftest import _need

        _need("sbcl", "apt-get install sbcl")
    name, text = AGENTS[language, behaviour]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with crowded_cpu(busy) as cpu:
        handle = open_handle(file_spec(path), Isolation(mode, LIMIT))
        try:
            # else the test would pass without checking anything (it did once)
            assert os.sched_getaffinity(handle.host.process.pid) == {cpu}
            handle.start_game(GameStart(1, 3, Payoffs()))
            handle.request(None)
            return handle.collect()
        finally:
            handle.close()


@pytest.mark.parametrize("language", ["python", "lisp"])
def test_an_honest_call_on_a_crowded_cpu_answers_though_its_wall_time_is_over(
        tmp_path, mode, language):
    reply = first_reply(tmp_path, language, "honest", mode)
    assert reply.fault is None, reply.fault
    assert reply.moves == "CCC"


def test_time_asleep_is_the_agents_own_and_counts(tmp_path, mode):
    reply = first_reply(tmp_path, "python", "sleeps", mode)
    assert reply.fault is not None and reply.fault.kind == "timeout"


@pytest.mark.parametrize("language", ["python", "lisp"])
def test_a_call_that_never_ends_still_times_out_on_a_crowded_cpu(tmp_path, mode, language):
    reply = first_reply(tmp_path, language, "loops", mode)
    assert reply.fault is not None and reply.fault.kind == "timeout"
    assert "killed and replaced" in reply.fault.message


def test_a_death_is_a_crash_however_long_the_zygote_waits_to_report_it(tmp_path, mode):
    """The zygote, which hears of the death first, waits for the crowded CPU too: the
    call is not a timeout for that."""
    reply = first_reply(tmp_path, "python", "dies", mode)
    assert reply.fault is not None and reply.fault.kind == "crash", reply.fault
    assert "status 3" in reply.fault.message


def test_a_wait_behind_its_own_processes_is_not_given_back(tmp_path, mode):
    """Alone on its CPU but for its 2 busy children, its call needs half the limit of CPU
    and takes 1.5 times the limit: time given back would let it answer; none is."""
    reply = first_reply(tmp_path, "python", "crowds itself", mode, busy=0)
    assert reply.fault is not None and reply.fault.kind == "timeout"


def test_the_time_given_back_is_capped():
    from harness.isolation.handles.process import ProcessHandle

    handle = ProcessHandle.__new__(ProcessHandle)
    handle.timeout, handle.credit = LIMIT, 0.0

    class Starved:   # a host whose process waited an hour for a CPU
        ending = ended = False
        released_at = 0.0

        def at_deadline(self):
            return 3600.0, None

    handle.host = Starved()
    handle.asked_until = 0.0
    handle._time_given_back()
    assert handle.credit == pytest.approx((OWN_TIME_CAP - 1) * LIMIT)


def test_a_death_is_seen_at_the_deadline_though_the_zygote_never_reports_it(tmp_path, mode):
    """The zygote, stopped here, cannot reap the game's process or say DIED (on a crowded
    machine it may not get a CPU for longer than the cap): the monitor reads the death
    from /proc at the deadline, and the call is the crash it was, with its status."""
    import signal

    from harness.isolation.own_time import _children_below, game_process

    name, text = AGENTS["python", "dies"]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    handle = open_handle(file_spec(path), Isolation(mode, LIMIT))
    try:
        handle.start_game(GameStart(1, 3, Payoffs()))
        game = game_process(_children_below(handle.host.process.pid))
        zygote = _parent_of(game)
        os.kill(zygote, signal.SIGSTOP)
        try:
            handle.request(None)
            reply = handle.collect()
        finally:
            os.kill(zygote, signal.SIGCONT)
        assert reply.fault is not None and reply.fault.kind == "crash", reply.fault
        assert "status 3" in reply.fault.message
    finally:
        handle.close()


def _parent_of(pid):
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return int(stat.read().rpartition(b")")[2].split()[1])


def test_an_answer_written_before_the_process_died_is_its_answer(tmp_path, mode):
    """It answers in time and dies just after; the monitor, busy elsewhere, looks only past
    the deadline and finds the process dead: the answer in the pipe is the call's reply,
    not the death (the pipelined runner's path: waiting_on, then collect)."""
    import time

    path = tmp_path / "AnswersThenDies.py"
    path.write_text('''import os
import threading


def AnswersThenDies(hist, score):
    threading.Timer(0.05, lambda: os._exit(3)).start()
    return ["C", "C", "C"]
''', encoding="utf-8")
    handle = open_handle(file_spec(path), Isolation(mode, LIMIT))
    try:
        handle.start_game(GameStart(1, 3, Payoffs()))
        time.sleep(LIMIT)   # loaded (LOADED): the first TURN is sent once the agent is
        handle.request(None)
        time.sleep(2 * LIMIT)   # the monitor busy with other games
        assert handle.waiting_on() == {}
        reply = handle.collect()
        assert reply.fault is None and reply.moves == "CCC", reply
    finally:
        handle.close()
