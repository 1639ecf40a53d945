"""How one host process is started (`Launch`: what Popen needs, what to release once it
ended), the agent file's bytes handed to it on a descriptor, and the user ids sandboxes
run as: shared by the `process` launcher and the sandbox's."""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from typing import Callable

from harness.agents.agent_files import SOURCE_FD, source_memfd

UID_BASE = 1_900_000_000           # sandbox user ids: far above any real account's
UID_SPAN = 100_000_000


@dataclass
class Launch:
    """How to start one host process: what Popen needs, and fds to close once it started."""

    argv: list[str]
    env: dict[str, str]
    preexec_fn: Callable | None = None
    pass_fds: tuple[int, ...] = ()
    cpu_seconds: int | None = None     # the CPU time limit it will run under
    release: Callable | None = None    # call once the process has ended (its cgroup)
    cpu_counter: str | None = None     # its cgroup's CPU counter (own_time.CallClock)

    def popen_options(self) -> dict:
        options: dict[str, object] = {}
        if self.preexec_fn is not None:
            options["preexec_fn"] = self.preexec_fn
        if self.pass_fds:
            options["pass_fds"] = self.pass_fds
        return options

    def close(self) -> None:
        """The process started (or could not): close the parent's copies of its fds
        (forgotten first: harness/isolation/descriptors.py)."""
        fds, self.pass_fds = self.pass_fds, ()
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def ended(self) -> None:
        """The process and all it started are gone (killed and waited for)."""
        release, self.release = self.release, None
        if release is not None:
            release()


@dataclass
class Given:
    env: dict[str, str] = field(default_factory=dict)
    fds: tuple[int, ...] = ()


def given_source(spec) -> Given:
    """The agent file's bytes as the run plays them (AgentSpec.content), on a descriptor
    the host reads (harness/agents/agent_files.py, SOURCE_FD): never the file again."""
    if not spec.is_file:
        return Given()
    fd = source_memfd(spec.content())
    return Given({SOURCE_FD: str(fd)}, (fd,))


_uids = itertools.count()


def next_uid() -> int:
    """A user id no other running sandbox of this monitor has (and, with the pid mixed in,
    most likely none of another monitor's either)."""
    return UID_BASE + (os.getpid() * 10_000 + next(_uids)) % UID_SPAN
