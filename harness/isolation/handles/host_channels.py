"""A host's channels and how they fail: the game channel's pipe pair (made before the
host starts, passed down to it), and the typed outcomes a read of them ends in besides a
reply, each saying which process failed (handles/host_process.py raises them, the process
handle turns them into faults by the fault policy's table)."""
from __future__ import annotations

import os
import signal

READ_CHUNK = 65536   # bytes a read of a host's pipe takes at most


class HostGone(Exception):
    """The host process ended, or its game's process died."""


class GameDied(HostGone):
    """The game's process died; the host lives on (its zygote said DIED)."""


class Violation(Exception):
    """The host broke the protocol: on the game channel (agent code writing on it: its
    game's process goes), or on the control channel (`by_zygote`: the whole host goes)."""

    def __init__(self, message: str, by_zygote: bool = False):
        super().__init__(message)
        self.by_zygote = by_zygote


class NoAnswer(TimeoutError):
    """No reply by the deadline. `untaken`: the host did not even take its whole request."""

    def __init__(self, untaken: bool):
        super().__init__()
        self.untaken = untaken


def describe_status(status: int) -> str:
    """A wait(2) status in words: how a process ended."""
    if os.WIFSIGNALED(status):
        return killed_by(os.WTERMSIG(status))
    return f"process exited with status {os.WEXITSTATUS(status)}"


def killed_by(number: int) -> str:
    try:
        return f"process killed by {signal.Signals(number).name}"
    except ValueError:
        return f"process killed by signal {number}"


def read_now(fd: int) -> bytes | None:
    """A chunk of what waits on non-blocking `fd`: None when nothing does, b"" at its end
    (or when it cannot be read: the process is gone)."""
    try:
        return os.read(fd, READ_CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class GameChannel:
    """The game channel's two pipes: the host's ends (passed down, named in PDH_GAME_FDS)
    and the monitor's. Made before the host's command line, which may carry its
    environment (the sandbox's does)."""

    def __init__(self):
        game_requests, request_fd = os.pipe()
        reply_fd, game_replies = os.pipe()
        self.ours: tuple[int, ...] = (request_fd, reply_fd)
        self.theirs: tuple[int, ...] = (game_requests, game_replies)
        self.env = {"PDH_GAME_FDS": f"{game_requests},{game_replies}"}

    # each pair forgotten before it is closed (harness/isolation/descriptors.py)
    def close_theirs(self) -> None:
        fds, self.theirs = self.theirs, ()
        for fd in fds:
            os.close(fd)

    def close_ours(self) -> None:
        fds, self.ours = self.ours, ()
        for fd in fds:
            os.close(fd)
