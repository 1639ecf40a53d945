"""Every host process is started from one thread that lives as long as the monitor."""
from __future__ import annotations

import os
import signal
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

_spawner = None
_spawner_pid = None
_spawner_lock = threading.Lock()


def popen(*args, **kwargs) -> subprocess.Popen:
    """subprocess.Popen, called from one thread that lives as long as the monitor.

    The kernel sends the parent-death signal (bwrap's --die-with-parent, PR_SET_PDEATHSIG)
    when the *thread* that started a child ends, not its process: a host started from a
    worker thread that then finishes (the tournament opens agents on a thread pool) would
    be killed with it.
    """
    global _spawner, _spawner_pid

    with _spawner_lock:
        if _spawner is None or _spawner_pid != os.getpid():  # threads do not survive fork
            _spawner = ThreadPoolExecutor(1, thread_name_prefix="pdharness-spawner")
            _spawner_pid = os.getpid()
        spawner = _spawner
    started = spawner.submit(subprocess.Popen, *args, **kwargs)
    try:
        return started.result()
    except BaseException as error:
        if not (started.done() and started.exception() is error):   # not Popen's own
            _end_when_started(started)   # a Ctrl-C while the spawner starts it
        raise


def _end_when_started(started) -> None:
    """Let an interrupted start finish (a few milliseconds) before the stop goes on: the
    caller's cleanup closes the descriptors it passes down, which the spawner may still be
    handing to the child; then end the process it started, which nobody else knows of."""
    while True:
        try:
            process = started.result()
            break
        except KeyboardInterrupt:   # a second Ctrl-C: the start is still short
            continue
        except Exception:   # noqa: BLE001 - it did not start: nothing to end
            return
    try:
        os.killpg(process.pid, signal.SIGKILL)   # a host leads a session: its group too
    except OSError:
        pass
    process.kill()
    process.wait()
