"""Limits per agent, not per process, and no kernel object shared between agents.

Two mechanisms, both set up before any agent code runs (docs/readme/untrusted.md has the
table of what holds where):

- a cgroup per host process where this monitor can make one (harness/cgroups.py): memory,
  processes and CPU of everything the agent starts, together;
- where it cannot, agent code may not start processes at all: the host is told, through
  `NO_FORK_VARIABLE` (the filter as hex), to install harness/seccomp.py's no-fork filter in
  the process that runs agent code (a host that forks a fresh process per game installs it
  there, never in the process that forks).

Every agent process also runs under seccomp's base filter (keyring, locks, inotify, SysV
IPC, memfd, ptrace, namespaces ... denied): bwrap installs it in the sandbox, the process
handle's pre-exec step under `process` isolation.
"""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import limits as resource_limits
from .seccomp import NO_FORK_VARIABLE

NO_FORK_LISP = Path(__file__).resolve().parent.parent / "lisp_bridge" / "no_fork.lisp"


@dataclass
class PerAgent:
    enter: Callable | None = None       # run in the child before exec: join the cgroup
    release: Callable | None = None     # run once the host ended: remove the cgroup
    env: dict = field(default_factory=dict)

    def command(self, argv: list[str]) -> list[str]:
        """The host's argv as given: both hosts are zygotes and must fork; each installs
        the no-fork filter in every process it forks, before agent code runs there (the
        Python host through harness.seccomp.fork_denier, the SBCL host by loading
        lisp_bridge/no_fork.lisp, named in PDH_NO_FORK_LISP)."""
        return list(argv)


def per_agent(memory: int | None) -> PerAgent:
    """A fresh cgroup for one host process, or, where none can be made, the instruction to
    forbid forking."""
    from . import cgroups

    groups = cgroups.available()
    if groups is not None:
        try:
            group = groups.make(cgroups.Budget(memory, resource_limits.DEFAULT_PROCESSES))
        except OSError:
            group = None
        if group is not None:
            return PerAgent(group.enter, lambda: groups.release(group))
    no_fork = _program(no_fork=True)
    return PerAgent(env={NO_FORK_VARIABLE: no_fork.hex(), "PDH_NO_FORK_LISP": str(NO_FORK_LISP)}
                    if no_fork else {})


def describe() -> str:
    """How an agent's processes are held together here, for users."""
    from . import cgroups

    groups = cgroups.available()
    if groups is None:
        return "no cgroup: one process per agent (forking denied), limits per process"
    return f"a cgroup per agent ({', '.join(sorted(groups.controllers))})"


_programs: dict[bool, bytes | None] = {}


def _program(no_fork: bool) -> bytes | None:
    if no_fork not in _programs:
        from . import seccomp

        try:
            _programs[no_fork] = seccomp.program(no_fork=no_fork)
        except seccomp.Unsupported:
            _programs[no_fork] = None
    return _programs[no_fork]


def filter_fd() -> int | None:
    """The read end of a pipe holding the base filter, for bwrap's --seccomp (it reads the
    whole program, then closes it); None where there is no filter for this machine."""
    code = _program(no_fork=False)
    if code is None:
        return None
    try:
        read, write = os.pipe()
    except OSError as error:
        if error.errno in (errno.EMFILE, errno.ENFILE):  # ours, not the agent's
            from .errors import OutOfFiles

            raise OutOfFiles("the monitor has no file descriptor left for an agent's "
                             f"system call filter ({error.strerror}): raise `ulimit -n`") from error
        raise
    try:
        os.write(write, code)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write)
    return read
