"""The user an agent's host runs as under `process` isolation when the monitor is root.

A root monitor must never run agent code as root: without bubblewrap (the fallback where
user namespaces are forbidden, as on some graders) an agent would write the instructor's
files, the record or the autograder's results, and kill the monitor. So each host process
drops, between fork and exec, to a user id of its own (harness/isolation/sandbox.py picks it, as it
does for the sandbox's `setpriv`): no supplementary group, no capability but one.

That one is CAP_DAC_READ_SEARCH, kept only when it is needed: without a sandbox nothing
can show the host only what it needs, and what it needs (the interpreter, its standard
library and site folders, the harness, the cache) may sit where other users cannot read
(/root is 0700, and pyenv's Python or a checkout may live there). `unreadable` finds out by
trying: a process started as a user of its own without any capability starts the real
interpreter, imports the host and checks every folder the host reads. When that works (a
venv made from /usr/bin/python3 in a folder anyone can read), hosts keep no capability at
all and read only what any user may. Otherwise the capability is kept as an ambient one, so
that it survives exec, and the agent reads what root can read (the monitor says so once):
it still writes only what any user may (/tmp), signals only its own processes, and, through
the seccomp filter, opens no socket and no file by handle (open_by_handle_at, the way out of
that capability, is denied). docs/security.md says this to users.
"""
from __future__ import annotations

import os
import subprocess

from harness.agents.lang.python_process import host_environment, python_code_command

CAP_DAC_READ_SEARCH = 2
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_PR_SET_SECUREBITS = 28
# the kernel keeps capabilities through setuid(2) and honours them in access(2) (SBCL's
# LOAD asks access() first), and nobody may change that later
_SECBIT_NO_SETUID_FIXUP, _SECBIT_NO_SETUID_FIXUP_LOCKED = 1 << 2, 1 << 3
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_RAISE = 47, 2


class CannotDrop(Exception):
    """This machine gives no way to run a host as another user (not Linux, no libc)."""


def dropper(uid: int, keep_read: bool = True):
    """The function that, run as root between fork and exec, makes the process user `uid`
    (group `uid`, no supplementary groups) keeping only CAP_DAC_READ_SEARCH across exec
    (and in access(2), whose check drops capabilities otherwise: SECBIT_NO_SETUID_FIXUP),
    or no capability at all (`keep_read` false).
    Prepared here, so the child only makes system calls; it raises OSError if the kernel
    refuses, so that the process never starts as root (Popen reports the error)."""
    try:
        import ctypes  # heavy (ctypes): loaded only where used

        libc = ctypes.CDLL(None, use_errno=True)
        prctl, capset = libc.prctl, libc.capset
    except (OSError, AttributeError) as error:
        raise CannotDrop(f"cannot change user here: {error}") from error
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    kept = 1 << CAP_DAC_READ_SEARCH if keep_read else 0
    # struct __user_cap_data_struct[2]: effective, permitted, inheritable (low, then high)
    data = (ctypes.c_uint32 * 6)(kept, kept, kept, 0, 0, 0)
    setgroups, setresgid, setresuid = os.setgroups, os.setresgid, os.setresuid
    securebits = _SECBIT_NO_SETUID_FIXUP | _SECBIT_NO_SETUID_FIXUP_LOCKED

    def drop():
        keep = (header, data)  # noqa: F841 - alive as long as this function
        if prctl(_PR_SET_SECUREBITS, securebits, 0, 0, 0) != 0:
            _fail(ctypes.get_errno(), "securebits")
        setgroups([])
        setresgid(uid, uid, uid)
        setresuid(uid, uid, uid)
        if capset(header, data) != 0:
            _fail(ctypes.get_errno(), "capset")
        if keep_read and prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH,
                               0, 0) != 0:
            _fail(ctypes.get_errno(), "ambient capability")
        if os.getuid() != uid or os.geteuid() != uid:   # never go on as root
            _fail(0, "user id unchanged")

    return drop


def _fail(number: int, what: str):
    raise OSError(number, f"cannot run the agent as a user of its own: {what}")


# Run as the agent's user without capabilities: the interpreter starts (its standard library
# and site folders), the host's modules import, and every folder or file given can be read
# (folders searched too: os.access walks each component of the path as this user).
_PROBE = """import os, sys
import harness.isolation.host, harness.isolation.world
for path in sys.argv[1:]:
    wanted = os.R_OK | (os.X_OK if os.path.isdir(path) else 0)
    if not os.access(path, wanted):
        sys.stdout.write("unreadable " + path)
        break
else:
    sys.stdout.write("ok")
"""


def unreadable(paths, uid: int) -> str | None:
    """None when a host running as user `uid` with no capability reads all it needs (the
    interpreter starts as that user, imports the host, and reads every one of `paths`);
    else why not, in a few words (the first path it cannot read)."""
    try:
        drop = dropper(uid, keep_read=False)
        done = subprocess.run(python_code_command(_PROBE) + list(paths), capture_output=True,
                              text=True, errors="replace", timeout=60, cwd="/",
                              env=host_environment(""), preexec_fn=drop)
    except CannotDrop as error:
        return f"the check could not run ({error})"
    except (OSError, subprocess.SubprocessError) as error:   # exec refused: not readable
        return f"its interpreter does not start as that user ({error})"
    if done.returncode == 0 and done.stdout == "ok":
        return None
    if done.stdout.startswith("unreadable "):
        return f"it cannot read {done.stdout[len('unreadable '):]}"
    lines = done.stderr.strip().splitlines()
    return (f"its interpreter does not start: {lines[-1][:200]}" if lines
            else f"its interpreter does not start (exit status {done.returncode})")
