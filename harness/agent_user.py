"""The user an agent's host runs as under `process` isolation when the monitor is root.

A root monitor must never run agent code as root: without bubblewrap (the fallback where
user namespaces are forbidden, as on some graders) an agent would write the instructor's
files, the record or the autograder's results, and kill the monitor. So each host process
drops, between fork and exec, to a user id of its own (harness/sandbox.py picks it, as it
does for the sandbox's `setpriv`): no supplementary group, no capability but one.

That one is CAP_DAC_READ_SEARCH, kept as an ambient capability so that it survives exec:
without a sandbox nothing can show the host only what it needs, and what it needs (the
interpreter, the harness, the cache, the agent's file) often sits where other users cannot
read (/root is 0700, and pyenv's Python or a checkout may live there). So a dropped agent
still reads what root can read, but writes only what any user may (/tmp), signals only its
own processes, and, through the seccomp filter, opens no socket and no file by handle
(open_by_handle_at, the way out of that capability, is denied). docs/readme/untrusted.md
says this to users.
"""
from __future__ import annotations

import os

CAP_DAC_READ_SEARCH = 2
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_PR_SET_SECUREBITS = 28
# the kernel keeps capabilities through setuid(2) and honours them in access(2) (SBCL's
# LOAD asks access() first), and nobody may change that later
_SECBIT_NO_SETUID_FIXUP, _SECBIT_NO_SETUID_FIXUP_LOCKED = 1 << 2, 1 << 3
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_RAISE = 47, 2


class CannotDrop(Exception):
    """This machine gives no way to run a host as another user (not Linux, no libc)."""


def dropper(uid: int):
    """The function that, run as root between fork and exec, makes the process user `uid`
    (group `uid`, no supplementary groups) keeping only CAP_DAC_READ_SEARCH across exec
    (and in access(2), whose check drops capabilities otherwise: SECBIT_NO_SETUID_FIXUP).
    Prepared here, so the child only makes system calls; it raises OSError if the kernel
    refuses, so that the process never starts as root (Popen reports the error)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        prctl, capset = libc.prctl, libc.capset
    except (OSError, AttributeError) as error:
        raise CannotDrop(f"cannot change user here: {error}") from error
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    kept = 1 << CAP_DAC_READ_SEARCH
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
        if prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0) != 0:
            _fail(ctypes.get_errno(), "ambient capability")
        if os.getuid() != uid or os.geteuid() != uid:   # never go on as root
            _fail(0, "user id unchanged")

    return drop


def _fail(number: int, what: str):
    raise OSError(number, f"cannot run the agent as a user of its own: {what}")
