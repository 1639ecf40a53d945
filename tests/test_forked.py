"""harness/engine/forked.py: forked workers that a stop can never hang, and that never outlive
the monitor. Real forks, real signals, a real kill -9."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from harness.engine.forked import WorkerDied, Workers

from conftest import ROOT, all_gone, children


def square(number):
    return number * number


def fails_on_three(number):
    if number == 3:
        raise ValueError(f"no {number}")
    return number


def exits_on_three(number):
    if number == 3:
        os._exit(7)
    return number


def own_pid(_):
    return os.getpid()


@pytest.mark.parametrize("chunksize", [1, 3, 100])
def test_results_come_in_order_or_as_they_come_and_equal_a_plain_map(chunksize):
    with Workers(2) as workers:
        assert list(workers.map(square, range(20), chunksize)) == [n * n for n in range(20)]
        assert sorted(workers.map(square, range(20), chunksize, ordered=False)) == sorted(
            n * n for n in range(20))
        assert list(workers.map(square, [], chunksize)) == []


def test_an_exception_in_a_worker_is_raised_in_the_caller_and_the_workers_are_gone():
    workers = Workers(2)
    living = {pid: start for pid, start in children(os.getpid()).items()
              if pid in workers.pids}
    with pytest.raises(ValueError, match="no 3"):
        list(workers.map(fails_on_three, range(6)))
    assert workers.pids == []
    assert all_gone(living) == []


def test_a_worker_that_dies_is_an_error_not_a_hang():
    with Workers(2) as workers, pytest.raises(WorkerDied, match="exit status 7"):
        list(workers.map(exits_on_three, range(6)))


def test_workers_ignore_sigint_and_sigterm_sent_to_them_the_monitor_decides():
    """A terminal's Ctrl-C, `timeout` or systemd signal every process of the run: a worker
    that died of it could leave the monitor waiting for ever (multiprocessing's pool)."""
    with Workers(2) as workers:
        pids = set(workers.map(own_pid, range(8)))
        assert pids <= set(workers.pids) and pids
        for pid in workers.pids:
            os.kill(pid, signal.SIGTERM)
            os.kill(pid, signal.SIGINT)
        assert list(workers.map(square, range(8))) == [n * n for n in range(8)]


def test_a_killed_monitor_takes_its_busy_workers_with_it(tmp_path):
    """kill -9 of the process that forked them while they play (an idle worker reads the
    end of its socket and ends; a busy one would play on): the kernel kills them
    (PR_SET_PDEATHSIG), where multiprocessing's workers lived on for ever."""
    script = textwrap.dedent("""
        import sys, time
        from harness.engine.forked import Workers

        def busy(flag):
            open(flag, "w").close()
            time.sleep(600)

        workers = Workers(2)
        print(*workers.pids, flush=True)
        list(workers.map(busy, [sys.argv[1] + "/a", sys.argv[1] + "/b"]))
    """)
    monitor = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)],
                               stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        pids = [int(pid) for pid in monitor.stdout.readline().split()]
        workers = {pid: start for pid, start in children(monitor.pid).items()
                   if pid in pids}
        assert len(workers) == 2
        give_up = time.monotonic() + 120   # a guard against hanging, not a measurement
        while not ((tmp_path / "a").exists() and (tmp_path / "b").exists()):
            assert time.monotonic() < give_up and monitor.poll() is None
            time.sleep(0.02)
        monitor.kill()
        monitor.wait()
        assert all_gone(workers) == []
    finally:
        if monitor.poll() is None:
            monitor.kill()
            monitor.wait()
