"""The Lisp file a student loads into their own SBCL REPL to get `(monitor ...)`."""
from __future__ import annotations

from pathlib import Path


def repl_monitor_file() -> Path:
    return Path(__file__).resolve().parent / "repl_monitor.lisp"
