"""Closing the monitor's descriptors once, whatever interrupts it.

Python runs a signal handler when a call returns, so the monitor's Ctrl-C handler
(harness/core/interrupts.py) can raise just after `os.close(fd)` and before the line that
forgets `fd`. The object then still names a closed descriptor, and the cleanup the stop
runs closes it again: EBADF, which ended a stopped run as an internal error, or, once the
number is reused, another file's descriptor closed in its owner's place. So an owner
forgets a descriptor (-1) before it closes it: an interrupt in between leaves at worst a
descriptor open until the monitor exits, never one closed twice.
"""
from __future__ import annotations

import os

CLOSED = -1


def close_held(owner, *names: str) -> None:
    """Close the descriptors held in `owner`'s attributes `names`, each forgotten first."""
    for name in names:
        fd = getattr(owner, name)
        if fd == CLOSED:
            continue
        setattr(owner, name, CLOSED)
        try:
            os.close(fd)
        except OSError:
            pass   # Linux frees the number even when close reports an error: nothing to redo
