"""Resource limits for an agent's host process, set in the child between fork and exec.

An agent may allocate tens of GiB, spin in a background thread between calls, write a huge
file or fork without end. The per-call deadline stops a slow answer; these limits stop
everything else, whatever the agent's language:

- address space (RLIMIT_AS, default 1 GiB): an allocation past it fails in the agent;
- CPU time (RLIMIT_CPU): a process that burns CPU outside its calls is killed in the end;
- file size (RLIMIT_FSIZE), open files (RLIMIT_NOFILE), no core dumps (RLIMIT_CORE);
- processes (RLIMIT_NPROC): only where the kernel counts the agent's processes apart from
  everyone else's, i.e. inside the sandbox (see harness/isolation/sandbox.py). The kernel never
  applies it to root, and for any other user it counts all of the user's processes.

A language whose runtime reserves memory up front fits its own host command under the
limit (SBCL's heap: harness/agents/lang/lisp.py).
"""
from __future__ import annotations

import resource
import signal
from dataclasses import dataclass

MIB = 1024 * 1024
DEFAULT_MEMORY = 1024 * MIB
DEFAULT_CPU_SECONDS = 600        # a budget for the process's whole life, not per call
DEFAULT_PROCESSES = 32           # tasks (threads count) of one sandboxed agent
DEFAULT_FILE_SIZE = 16 * MIB
DEFAULT_OPEN_FILES = 256



@dataclass(frozen=True)
class Limits:
    memory: int | None = DEFAULT_MEMORY     # bytes of address space; None: unlimited
    cpu_seconds: int | None = DEFAULT_CPU_SECONDS
    file_size: int = DEFAULT_FILE_SIZE
    open_files: int = DEFAULT_OPEN_FILES
    processes: int | None = None            # set only where the kernel counts them apart

    def settings(self) -> list[tuple[int, int, int]]:
        """(resource, soft, hard) for each limit, never above what the monitor has."""
        wanted = [(resource.RLIMIT_CORE, 0, 0),
                  (resource.RLIMIT_FSIZE, self.file_size, self.file_size),
                  (resource.RLIMIT_NOFILE, self.open_files, self.open_files)]
        if self.memory:
            wanted.append((resource.RLIMIT_AS, self.memory, self.memory))
        if self.cpu_seconds:
            # the soft limit sends SIGXCPU (deadly unless caught), the hard one SIGKILL
            wanted.append((resource.RLIMIT_CPU, self.cpu_seconds, self.cpu_seconds + 5))
        if self.processes:
            wanted.append((resource.RLIMIT_NPROC, self.processes, self.processes))
        return [_within_current(*setting) for setting in wanted]


def _within_current(which: int, soft: int, hard: int) -> tuple[int, int, int]:
    """An unprivileged process cannot raise its hard limit: stay under the current one."""
    _soft_now, hard_now = resource.getrlimit(which)
    if hard_now != resource.RLIM_INFINITY:
        hard = min(hard, hard_now)
        soft = min(soft, hard)
    return which, soft, hard


def preexec(limits: Limits, die_with_parent: bool = False, first=None, last=None,
            become=None):
    """The function Popen runs in the child before exec: `first()` (joining the agent's
    cgroup), the limits, `become()` (leaving root for the agent's own user: harness/
    agent_user.py), the parent-death signal (after `become`: the kernel clears it when
    the user changes), `last()` (installing a seccomp filter).

    Everything it needs is computed here, in the monitor: in the child (a fork of a process
    that may have threads) it only makes system calls, no imports and no allocations that
    could wait on a lock another thread held at fork time.
    """
    settings = limits.settings()
    setrlimit = resource.setrlimit
    parent_death = _parent_death_signal() if die_with_parent else None

    def in_child():
        if first is not None:
            first()
        for which, soft, hard in settings:
            setrlimit(which, (soft, hard))
        if become is not None:
            become()
        if parent_death is not None:
            parent_death()
        if last is not None:
            last()

    return in_child


def _parent_death_signal():
    """A call that makes the kernel SIGKILL the child when the monitor dies (Linux only):
    without the sandbox's --die-with-parent, a host would otherwise outlive a killed run."""
    try:
        import ctypes  # `pdharness` starts light

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    set_parent_death_signal, sigkill = 1, int(signal.SIGKILL)  # PR_SET_PDEATHSIG
    return lambda: prctl(set_parent_death_signal, sigkill, 0, 0, 0)
