"""Ctrl-C at the monitor, told apart from an agent raising KeyboardInterrupt itself.

With `--isolation none` agents run in the monitor's process, and the runtime counts any
exception from an agent, KeyboardInterrupt included, as that agent's fault. A Ctrl-C typed
while an agent happened to be running would then be swallowed as a fault and the run would
go on. The command line installs `install()`'s handler; the runtime re-raises an agent's
KeyboardInterrupt only when the user really pressed Ctrl-C.
"""
from __future__ import annotations

import signal

_pressed = False


def _on_sigint(signum, frame):
    global _pressed
    _pressed = True
    raise KeyboardInterrupt


def install() -> None:
    """Call from the main thread; leaves a handler someone else installed alone."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)


def pressed() -> bool:
    return _pressed
