"""`--isolation sandbox`: each agent's host process starts inside bubblewrap.

What the agent's process gets (docs/security.md says it for users):
- its own PID, IPC, UTS and network namespaces: it sees and can signal only its own
  processes, and has no network but an isolated loopback;
- a read-only view of only what the host needs: /usr (system libraries, SBCL), the Python
  installation and its site folders, what the agent's language adds (harness/agents/lang: SBCL
  elsewhere, the folders of hy and hyrule), the harness and lisp_bridge packages, the
  harness's cache, and a read-only copy of its own file at the file's path (not the
  folder around it, so no other submission); a bundle's agent, its own bundle's snapshot
  instead (harness/agents/bundles.py), read-only, as its current folder, and no other
  bundle's (snapshots are kept in folders no agent can list: bundles.snapshots_root);
- of the site folders, once the host has made its world, only what agents may import: the
  declared agent packages, hy and hyrule (harness/isolation/world.py, cover_libraries);
- a private, empty, size-limited /tmp, a minimal /dev, its own /proc, no capabilities, a
  new session (no terminal to inject input into), SIGKILL when the monitor dies;
- a minimal environment, and the resource limits of harness/isolation/limits.py.

When the monitor runs as root (the usual case on a grading server) the agent would be
root inside the sandbox too, and the kernel never counts root's processes; so each sandbox
drops to a user id of its own (`setpriv`), which also makes the process limit hold per
agent. Without `setpriv`, or where that user cannot read the Python installation, the
sandbox keeps root inside a user namespace without capabilities and no process limit.

Where bubblewrap cannot run at all (not Linux, not installed, no user namespaces), one
warning on stderr says what is not protected, and agents run as plain processes with the
resource limits (`process` isolation: under a root monitor, as users of their own).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from typing import Callable

from harness.agents.lang.python_process import host_environment, python_code_command
from harness.agents.specs import builtin_spec
from harness.core.safe_text import line

from . import confinement, limits as resource_limits
from .bwrap_command import DEDICATED_USER, SANDBOX_PATH, USER_NAMESPACE, Support, bwrap_command
from .launch import Launch, given_source
from .process_launch import process_launcher
from .sandbox_views import Views


# -- the hook the process handle uses ---------------------------------------------------------
def launcher(spec, isolation) -> Callable[[list[str], dict], Launch]:
    """For an agent and an isolation mode, the function (argv, env) -> Launch that the
    process handle calls for every process it starts (the first and every replacement)."""
    memory = isolation.memory_limit
    if isolation.mode == "sandbox":
        found = support()
        if found.flavor is not None:
            return _sandboxed(spec, memory, found)
        warn_once(found.reason)
    return process_launcher(spec, memory)


def _sandboxed(spec, memory, found: Support):
    views = Views.of(spec)
    kept = views.kept()

    def launch(argv, env):
        per_agent = confinement.per_agent(memory)
        argv = per_agent.command(argv)
        fds: tuple[int, ...] = ()
        try:
            source = given_source(spec)
            fds = source.fds
            data_fd = views.open_agent_file()
            fds += (data_fd,) if data_fd is not None else ()
            filter_fd = confinement.filter_fd()
            fds += (filter_fd,) if filter_fd is not None else ()
            command = bwrap_command(argv, dict(env, **per_agent.env, **kept, **source.env),
                                    views, found, data_fd, filter_fd)
        except BaseException:
            failed = Launch([], {}, pass_fds=fds, release=per_agent.release)
            failed.close()
            failed.ended()
            raise
        processes = resource_limits.DEFAULT_PROCESSES if found.flavor == DEDICATED_USER else None
        limits = resource_limits.Limits(memory=memory, processes=processes)
        return Launch(command, {"PATH": SANDBOX_PATH},
                      resource_limits.preexec(limits, first=per_agent.enter), fds,
                      limits.cpu_seconds, per_agent.release, per_agent.cpu_counter)

    return launch


# -- can it run here? ------------------------------------------------------------------------
_support: Support | None = None
_support_lock = threading.Lock()
_warned = False


def support() -> Support:
    """Probe once per process: start the real interpreter in each kind of sandbox."""
    global _support
    with _support_lock:
        if _support is None:
            _support = _probe()
        return _support


def _probe() -> Support:
    if not sys.platform.startswith("linux"):
        return Support(None, f"bubblewrap needs Linux, this is {sys.platform}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Support(None, "bubblewrap is not installed (apt-get install bubblewrap)")
    options = _known_options(bwrap)
    prlimit, setpriv = shutil.which("prlimit"), shutil.which("setpriv")
    candidates = []
    if os.geteuid() == 0 and setpriv:
        candidates.append(Support(DEDICATED_USER, "", bwrap, os.path.realpath(setpriv),
                                  prlimit and os.path.realpath(prlimit), options))
    candidates.append(Support(USER_NAMESPACE, "", bwrap, None,
                              prlimit and os.path.realpath(prlimit), options))
    reason = ""
    for candidate in candidates:
        reason = _try(candidate)
        if not reason:
            return candidate
    return Support(None, reason)


def _known_options(bwrap: str) -> frozenset:
    try:
        text = subprocess.run([bwrap, "--help"], capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(option for option in ("--perms", "--size", "--disable-userns")
                     if option in text)


def _try(candidate: Support) -> str:
    """'' when the host's interpreter starts in this sandbox and loads the harness."""
    views = Views.of(builtin_spec("cooperate"))
    # a game's own world is part of the sandbox (harness/isolation/world.py): tried as well
    probe = python_code_command("import harness.isolation.host, harness.isolation.world; "
                                "harness.isolation.world.probe()")

    filter_fd = confinement.filter_fd()  # the base seccomp filter, as agents will have it
    fds = (filter_fd,) if filter_fd is not None else ()
    command = bwrap_command(probe, host_environment(""), views, candidate, None, filter_fd)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30,
                              env={"PATH": SANDBOX_PATH}, pass_fds=fds)
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap does not start: {error}"
    finally:
        Launch([], {}, pass_fds=fds).close()
    if done.returncode == 0 and done.stdout == "ok":
        return ""
    lines = (done.stderr or done.stdout).strip().splitlines()
    return f"bubblewrap fails here: {lines[-1] if lines else f'exit status {done.returncode}'}"


def warn_once(reason: str) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    if os.geteuid() == 0:
        reach = ("each under a user id of its own that writes only what any user may "
                 "(/tmp) and reads what any user may (or, when it must, whatever root can)")
    else:
        reach = ("each can read and write whatever this user can, and signal other "
                 "processes, the monitor included")
    print(f"pdharness: warning: no sandbox: {line(reason)}. Agents run as plain processes with "
          f"resource limits only: {reach} (see docs/security.md, 'When the sandbox cannot run').",
          file=sys.stderr)


def describe() -> str:
    """One line about the sandbox on this machine, for `--isolation sandbox` users."""
    found = support()
    if found.flavor is None:
        return f"no sandbox: {found.reason}"
    if found.flavor == DEDICATED_USER:
        return "bubblewrap, each agent under a user id of its own, process limit enforced"
    if found.counts_processes:
        return "bubblewrap in a user namespace, process limit enforced"
    return "bubblewrap in a user namespace as root without capabilities, no process limit"
