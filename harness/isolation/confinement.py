"""Limits per agent, not per process, and no kernel object shared between agents.

Two mechanisms, both set up before any agent code runs (docs/security.md has the
table of what holds where):

- a cgroup per host process where this monitor can make one (harness/isolation/cgroups.py): memory,
  processes and CPU of everything the agent starts, together (its CPU time counted too,
  for the time limit: harness/isolation/own_time.py);
- where it cannot (or the group cannot count its CPU time), agent code may not start
  processes at all: the game filter the host installs in every process that runs agent
  code (`GAME_FILTER`, below) denies forking too.

Every agent process runs under seccomp's base filter (keyring, locks, inotify, SysV IPC,
memfd, ptrace, namespaces ... denied), in two layers (harness/isolation/seccomp.py): the host's
program, which still lets the host build each game's world (harness/isolation/world.py), installed
by bwrap in the sandbox and by the process handle's pre-exec step under `process`; and the
full program, which the host adds in each game's process before agent code runs.
"""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from typing import Callable

from harness.core.errors import OutOfFiles

from . import cgroups, limits as resource_limits, seccomp
from .seccomp import GAME_FILTER


@dataclass
class PerAgent:
    enter: Callable | None = None       # run in the child before exec: join the cgroup
    release: Callable | None = None     # run once the host ended: remove the cgroup
    env: dict = field(default_factory=dict)
    cpu_counter: str | None = None      # the file counting its processes' CPU time

    def command(self, argv: list[str]) -> list[str]:
        """The host's argv as given: every language's host is a zygote and must fork; each
        installs the game filter (`GAME_FILTER` in `env`) in every process it forks, before
        agent code runs there (the Python host through harness.isolation.seccomp.game_filter,
        the others with their own equivalent, e.g. lisp_bridge's install-game-filter)."""
        return list(argv)


def per_agent(memory: int | None, unix_sockets: bool = True) -> PerAgent:
    """A fresh cgroup for one host process, or, where none can be made, a game filter that
    forbids forking too. `unix_sockets`: whether its games may make AF_UNIX sockets (only
    in a network namespace of their own: harness/isolation/seccomp.py)."""
    groups = cgroups.available()
    if groups is not None:
        try:
            group = groups.make(cgroups.Budget(memory, resource_limits.DEFAULT_PROCESSES))
        except OSError:
            group = None
        if group is not None:
            # an agent may fork only where its processes' CPU time is counted together:
            # else a child's would not count towards its time limit
            counter = group.cpu_counter()
            return PerAgent(group.enter, lambda: groups.release(group),
                            _game_filter(counter is None, unix_sockets), counter)
    return PerAgent(env=_game_filter(True, unix_sockets))


def _game_filter(no_fork: bool, unix_sockets: bool) -> dict[str, str]:
    code = _program(no_fork=no_fork, unix_sockets=unix_sockets)
    return {GAME_FILTER: code.hex()} if code else {}


def describe() -> str:
    """How an agent's processes are held together here, for users."""
    groups = cgroups.available()
    if groups is None:
        return "no cgroup: one process per agent (forking denied), limits per process"
    return f"a cgroup per agent ({', '.join(sorted(groups.controllers))})"


_programs: dict[tuple[bool, bool, bool], bytes | None] = {}


def _program(no_fork: bool = False, host: bool = False,
             unix_sockets: bool = True) -> bytes | None:
    key = (no_fork, host, unix_sockets)
    if key not in _programs:
        try:
            _programs[key] = seccomp.program(no_fork=no_fork, host=host,
                                             unix_sockets=unix_sockets)
        except seccomp.Unsupported:
            _programs[key] = None
    return _programs[key]


def filter_fd() -> int | None:
    """The read end of a pipe holding the host's filter, for bwrap's --seccomp (it reads the
    whole program, then closes it); None where there is no filter for this machine."""
    code = _program(host=True)
    if code is None:
        return None
    try:
        read, write = os.pipe()
    except OSError as error:
        if error.errno in (errno.EMFILE, errno.ENFILE):  # ours, not the agent's
            raise OutOfFiles("the monitor has no file descriptor left for an agent's "
                             f"system call filter ({error.strerror}): raise `ulimit -n`") from error
        raise
    try:
        os.write(write, code)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write)
    return read
