"""The `*features*` of the SBCL that will load Lisp agents, for reading `#+`/`#-` as it will.

SBCL is asked once (its own reader prints the list, nothing of an agent's runs) and the
answer is cached in the folder the caller names, keyed by SBCL's version. Without SBCL
the reader falls back to the features of a typical SBCL on 64-bit Linux, and says it is
guessing.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

ASK = "(progn (let ((*package* (find-package :keyword))) (prin1 *features*)) (terpri))"


@dataclass(frozen=True)
class Features:
    names: frozenset[str]   # keyword names, upper case, as SBCL's *features* holds them
    exact: bool             # asked of the installed SBCL (else a typical SBCL's)


@lru_cache(maxsize=1)
def sbcl_features(cache: Callable[[], Path]) -> Features:
    """The features, kept under the folder `cache()` gives (asked only when SBCL is here)."""
    from lisp_bridge import sbcl
    from lisp_bridge.sexpr import FEATURES

    if not sbcl.available():
        return Features(FEATURES, exact=False)
    key = hashlib.sha256(sbcl.version().encode()).hexdigest()[:16]
    cached = cache() / "sbcl" / f"features-{key}.txt"
    try:
        return Features(_parse(cached.read_text(encoding="utf-8")), exact=True)
    except (OSError, ValueError):
        pass
    try:
        done = subprocess.run(sbcl.base_command() + ["--non-interactive", "--eval", ASK],
                              capture_output=True, text=True, timeout=60)
        names = _parse(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return Features(FEATURES, exact=False)
    _store(cached, done.stdout)
    return Features(names, exact=True)


def _parse(text: str) -> frozenset[str]:
    """The names of the keywords in the printed list (ValueError if it is not one)."""
    from lisp_bridge.sexpr import Symbol, read_all

    forms = read_all(text)
    if not (forms and isinstance(forms[-1], list) and forms[-1]
            and all(isinstance(item, Symbol) for item in forms[-1])):
        raise ValueError("not a list of features")
    return frozenset(item.name for item in forms[-1])


def _store(target, text: str) -> None:
    """Atomically, so a reader never sees half a file (validations run in parallel)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(dir=target.parent, suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(scratch, 0o644)
        os.replace(scratch, target)
    except OSError:
        pass  # asked again next time
