"""Under a root monitor, whether an agent's host must keep root's right to read
(CAP_DAC_READ_SEARCH, harness/isolation/agent_user.py): found out by trying, once per set of
paths the host reads."""
from __future__ import annotations

import sys
import threading

from harness.core.safe_text import line

from .agent_user import unreadable
from .launch import next_uid
from .sandbox_views import cache_of, language_roots, package_roots, python_roots, system_roots

_read_checks: dict[tuple[str, ...], str | None] = {}   # paths -> why a host needs the right
_read_lock = threading.Lock()
_read_noted = False


def keeps_read(spec) -> bool:
    """Under a root monitor, whether this agent's host must keep CAP_DAC_READ_SEARCH
    (harness/isolation/agent_user.py): only when a user of its own without capabilities cannot read
    what the host reads (the interpreter, its standard library and site folders, the
    harness, the language's own files, the cache for languages that use it), found out by
    trying once per set of paths. Said once on stderr when kept."""
    global _read_noted
    paths = system_roots() + python_roots() + package_roots() + language_roots(spec)
    cache = cache_of(spec)
    key = tuple(dict.fromkeys(paths + ([cache] if cache else [])))
    with _read_lock:
        if key not in _read_checks:
            _read_checks[key] = unreadable(key, next_uid())
        why = _read_checks[key]
        if why is None or _read_noted:
            return why is not None
        _read_noted = True
    print(f"pdharness: note: process isolation as root: agents keep the right to read every "
          f"file (CAP_DAC_READ_SEARCH), since a user of their own cannot run their host: "
          f"{line(why)}. To avoid it, make the venv from the system Python (/usr/bin/python3 "
          f"-m venv) in a folder every user can read, and keep PDHARNESS_CACHE there too "
          f"(see docs/security.md, '`process` isolation as root').", file=sys.stderr)
    return True
