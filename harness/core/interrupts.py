"""Ctrl-C and SIGTERM at the monitor, told apart from an agent raising KeyboardInterrupt.

With `--isolation none` agents run in the monitor's process, and the runtime counts any
exception from an agent, KeyboardInterrupt included, as that agent's fault. A Ctrl-C typed
while an agent happened to be running would then be swallowed as a fault and the run would
go on. The command line installs `install()`'s handlers; the runtime re-raises an agent's
KeyboardInterrupt only when the user really stopped the run.

SIGTERM (a `kill`, a batch system's time limit, `timeout`, a shutdown) ends a run the way
Ctrl-C does: the record is kept and the resume hint printed, where its default action
would lose both; the exit status says which (130 or 143, 128 + the signal, as a shell
does). The handler runs in the main thread only (Python's rule) and just raises there. The
processes the monitor forks (harness/engine/forked.py) never run it: they ignore both signals and
die with the monitor, since a Python handler in a worker is what once hung a pool's stop.
"""
from __future__ import annotations

# signal is imported where used: a host's lean image imports pass_on_a_stop, not signal's enum

_stopped_by = 0   # the signal that stopped the run (SIGINT or SIGTERM), 0 before one


def _on_stop(signum, frame):
    global _stopped_by
    _stopped_by = signum
    raise KeyboardInterrupt


def install() -> None:
    """Call from the main thread; leaves a handler someone else installed alone."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_stop)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_stop)


def pressed() -> bool:
    return bool(_stopped_by)


def pass_on_a_stop(error: BaseException) -> None:
    """Re-raise the user's Ctrl-C or SIGTERM where agent code was running in the monitor
    (isolation none): wherever it lands, in a call or in the module run anew for a game,
    it stops the run and is no agent's error."""
    if isinstance(error, KeyboardInterrupt) and pressed():
        raise error


def exit_status() -> int:
    """An interrupted run's exit status: 130 after Ctrl-C, 143 after SIGTERM."""
    import signal

    return 128 + (_stopped_by or signal.SIGINT)
