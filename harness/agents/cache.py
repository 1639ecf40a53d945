"""Where the harness keeps what it compiles (Hy bytecode, the SBCL server's fasl)."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """$PDHARNESS_CACHE, else $XDG_CACHE_HOME/pdharness, else ~/.cache/pdharness."""
    explicit = os.environ.get("PDHARNESS_CACHE")
    if explicit:
        path = Path(explicit)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "pdharness"
    path.mkdir(parents=True, exist_ok=True)
    return path


def compiled_agents_dir() -> Path:
    """Where code compiled from agents' own source is kept (`agents/<language>/`). The
    sandbox hides this folder: it would show an agent the other agents' code."""
    path = cache_dir() / "agents"
    path.mkdir(exist_ok=True)
    return path
