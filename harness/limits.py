"""Resource limits for an agent's host process, set in the child between fork and exec.

An agent may allocate tens of GiB, spin in a background thread between calls, write a huge
file or fork without end. The per-call deadline stops a slow answer; these limits stop
everything else, whatever the agent's language:

- address space (RLIMIT_AS, default 1 GiB): an allocation past it fails in the agent;
- CPU time (RLIMIT_CPU): a process that burns CPU outside its calls is killed in the end;
- file size (RLIMIT_FSIZE), open files (RLIMIT_NOFILE), no core dumps (RLIMIT_CORE);
- processes (RLIMIT_NPROC): only where the kernel counts the agent's processes apart from
  everyone else's, i.e. inside the sandbox (see harness/sandbox.py). The kernel never
  applies it to root, and for any other user it counts all of the user's processes.

SBCL reserves its whole heap (the "dynamic space") up front, so under an address-space
limit it must be told a smaller heap, or it cannot start: `fit_runtime` does that.
"""
from __future__ import annotations

import os
import resource
import signal
from dataclasses import dataclass

MIB = 1024 * 1024
DEFAULT_MEMORY = 1024 * MIB
DEFAULT_CPU_SECONDS = 600        # a budget for the process's whole life, not per call
DEFAULT_PROCESSES = 32           # tasks (threads count) of one sandboxed agent
DEFAULT_FILE_SIZE = 16 * MIB
DEFAULT_OPEN_FILES = 256

# What SBCL maps besides its heap (core, other spaces, stacks, GC tables), measured on
# SBCL 2.2.9: about 210 MiB plus 2.5% of the heap. Leave room for the host's own mallocs.
SBCL_OVERHEAD = 256 * MIB
SBCL_SMALLEST_HEAP = 64 * MIB


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


def preexec(limits: Limits, die_with_parent: bool = False, first=None, last=None):
    """The function Popen runs in the child before exec: `first()` (joining the agent's
    cgroup), the limits, `last()` (installing a seccomp filter).

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
        if parent_death is not None:
            parent_death()
        if last is not None:
            last()

    return in_child


def _parent_death_signal():
    """A call that makes the kernel SIGKILL the child when the monitor dies (Linux only):
    without the sandbox's --die-with-parent, a host would otherwise outlive a killed run."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    set_parent_death_signal, sigkill = 1, int(signal.SIGKILL)  # PR_SET_PDEATHSIG
    return lambda: prctl(set_parent_death_signal, sigkill, 0, 0, 0)


# -- SBCL ------------------------------------------------------------------------------------
def sbcl_heap_mib(memory: int | None) -> int | None:
    """The --dynamic-space-size (MiB) that lets SBCL start under `memory` bytes of address
    space, or None when there is no limit. Below about 320 MiB SBCL cannot start at all."""
    if not memory:
        return None
    heap = int((memory - SBCL_OVERHEAD) * 0.9)
    return max(heap, SBCL_SMALLEST_HEAP) // MIB


def is_sbcl(argv: list[str]) -> bool:
    return bool(argv) and os.path.basename(argv[0]).startswith("sbcl")


def fit_runtime(argv: list[str], memory: int | None) -> list[str]:
    """The host's argv, with SBCL's heap made to fit under the address-space limit.

    A smaller --dynamic-space-size already on the command line is kept; runtime options come
    first on SBCL's command line, so a missing one goes right after the program name.
    """
    heap = sbcl_heap_mib(memory)
    if heap is None or not is_sbcl(argv):
        return list(argv)
    argv = list(argv)
    if "--dynamic-space-size" in argv:
        at = argv.index("--dynamic-space-size") + 1
        given = _megabytes(argv[at]) if at < len(argv) else None
        if given is not None and given <= heap:
            return argv
        argv[at:at + 1] = [f"{heap}MB"]
        return argv
    return [argv[0], "--dynamic-space-size", f"{heap}MB", *argv[1:]]


def _megabytes(text: str) -> float | None:
    """SBCL's size syntax: a number of megabytes, or with a KB/MB/GB suffix."""
    units = {"KB": 1 / 1024, "MB": 1, "GB": 1024, "K": 1 / 1024, "M": 1, "G": 1024}
    upper = text.strip().upper()
    for suffix in sorted(units, key=len, reverse=True):
        if upper.endswith(suffix):
            number, scale = upper[:-len(suffix)], units[suffix]
            break
    else:
        number, scale = upper, 1
    try:
        return float(number) * scale
    except ValueError:
        return None
