"""Reading a file someone else wrote (a submission, a roster), bounded: no more than a limit
is read, so a huge file costs no more than the limit, and where only a regular file makes
sense (a submission) nothing else is opened in a way that could block (a FIFO named like
an agent would wait forever)."""
from __future__ import annotations

import os
import stat


class NotReadable(Exception):
    """The path cannot be read as a file; the message is one line."""


def read_prefix(path, limit: int, regular_only: bool = True) -> tuple[bytes, bool]:
    """The first LIMIT bytes of PATH at most, and whether that is the whole file. Without
    REGULAR_ONLY a pipe (`--roster <(...)`) or a device is read as well, blocking."""
    # a regular file only: never through a symbolic link either (the monitor may be root)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (
        os.O_NONBLOCK | os.O_NOFOLLOW if regular_only else 0)
    try:
        handle = os.open(path, flags)
    except OSError as error:
        raise NotReadable(f"cannot read it ({error.strerror})")
    with os.fdopen(handle, "rb") as file:
        if regular_only and not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise NotReadable("not a regular file")
        try:
            data = file.read(limit + 1)
        except OSError as error:  # a folder on some systems, an I/O error
            raise NotReadable(f"cannot read it ({error.strerror})")
    return data[:limit], len(data) <= limit
