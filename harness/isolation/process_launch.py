"""`--isolation process`: a host started as a plain process, under the sandbox's resource
limits and system call filter, in a cgroup where one can be made."""
from __future__ import annotations

import os

from harness.core.errors import HarnessError

from . import confinement, limits as resource_limits, seccomp
from .agent_user import CannotDrop, dropper
from .launch import Launch, given_source, next_uid
from .root_read import keeps_read
from .sandbox_views import Views
from .world import OFF


def process_launcher(spec, memory):
    """`process` isolation: the same resource limits and system call filter, a cgroup where
    one can be made, each game's own world where the kernel allows one, no OS sandbox. Under
    a root monitor each process runs as a user of its own (harness/isolation/agent_user.py), which
    also makes the process limit hold per agent."""
    as_root = os.geteuid() == 0
    limits = resource_limits.Limits(
        memory=memory, processes=resource_limits.DEFAULT_PROCESSES if as_root else None)
    filtered = seccomp_installer(unix_sockets=False)  # no network namespace of its own
    kept = Views.of(spec).kept()
    keep_read = as_root and keeps_read(spec)

    def launch(argv, env):
        per_agent = confinement.per_agent(memory, unix_sockets=False)
        become = dropper_for(next_uid(), keep_read) if as_root else None
        source = given_source(spec)
        preexec = resource_limits.preexec(limits, die_with_parent=True,
                                          first=per_agent.enter, last=filtered,
                                          become=become)
        # a root monitor's agents that keep root's right to read would lose it in a game's
        # world (harness/isolation/world.py, OFF): their games are plain forks
        world = {OFF: "1"} if keep_read else kept
        return Launch(per_agent.command(argv),
                      dict(env, **per_agent.env, **world, **source.env), preexec, source.fds,
                      cpu_seconds=limits.cpu_seconds, release=per_agent.release,
                      cpu_counter=per_agent.cpu_counter)

    return launch


def dropper_for(uid: int, keep_read: bool):
    try:
        return dropper(uid, keep_read)
    except CannotDrop as error:  # never run an agent as root instead
        raise HarnessError(f"--isolation process as root: {error}; run the monitor as an "
                           "ordinary user, or use --isolation sandbox") from error


def seccomp_installer(unix_sockets: bool = True):
    """What installs the host's filter between fork and exec (each game's process adds the
    full one: harness/isolation/world.py), or None on an architecture
    harness/isolation/seccomp.py has no numbers for."""
    try:
        return seccomp.installer(seccomp.program(unix_sockets=unix_sockets, host=True))
    except seccomp.Unsupported:
        return None
