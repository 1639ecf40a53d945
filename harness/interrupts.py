"""Ctrl-C at the monitor, told apart from an agent raising KeyboardInterrupt itself.

With `--isolation none` agents run in the monitor's process, and the runtime counts any
exception from an agent, KeyboardInterrupt included, as that agent's fault. A Ctrl-C typed
while an agent happened to be running would then be swallowed as a fault and the run would
go on. The command line installs `install()`'s handler; the runtime re-raises an agent's
KeyboardInterrupt only when the user really pressed Ctrl-C.

SIGTERM (a `kill`, a batch system's time limit, a shutdown) ends a run the same way: the
record is kept and the resume hint printed, where the default action would lose both.
"""
from __future__ import annotations

import os
import signal

_pressed = 0      # the signal that stopped the run (SIGINT or SIGTERM), 0 before one
_installer = 0    # the process that installed the handlers (a forked worker is not it)


def _on_stop(signum, frame):
    global _pressed
    if signum == signal.SIGTERM and os.getpid() != _installer:
        # a forked worker that its pool terminates: it dies as asked
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    _pressed = signum
    raise KeyboardInterrupt


def install() -> None:
    """Call from the main thread; leaves a handler someone else installed alone."""
    global _installer
    _installer = os.getpid()
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_stop)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_stop)


def pressed() -> bool:
    return bool(_pressed)


def exit_status() -> int:
    """128 + the signal that stopped the run: 130 for Ctrl-C, 143 for SIGTERM."""
    return 128 + (_pressed or signal.SIGINT)
