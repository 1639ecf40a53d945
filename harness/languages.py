"""The one seam where Python, Hy and Common Lisp agents differ.

For each language: which files it claims, how a file loads inside a Python process (the
monitor's, for `--isolation none`, or a host's), how a played move pair appears in the
agent's `hist`, and which command starts a host process that serves the agent over the
line protocol of docs/DESIGN.md. Everything above this module treats agents alike.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import LoadError

_PLAIN_PAIRS = {(m, t): (m, t) for m in "CD" for t in "CD"}


def plain_pair(mine: str, theirs: str):
    """Python agents see each move pair as a tuple of the strings "C"/"D" (shared, immutable)."""
    return _PLAIN_PAIRS[mine, theirs]


def python_executable() -> str:
    """The interpreter running the monitor. Hy's command line (`hy script.hy`, `python -m
    hy`) puts its own script in sys.executable and keeps the interpreter in
    hy.sys_executable."""
    return getattr(sys.modules.get("hy"), "sys_executable", None) or sys.executable


def python_host_command(language: str, source: str, name: str) -> list[str]:
    return [python_executable(), "-m", "harness.host", language, source, name]


def package_root() -> str:
    """The folder holding the harness package, so a host finds it installed or not."""
    return str(Path(__file__).resolve().parent.parent)


@dataclass(frozen=True)
class Language:
    name: str
    suffix: str | None
    loader: Callable | None            # (path, name) -> factory(rng, moves_per_turn) -> fn
    pairs: Callable = lambda: plain_pair  # () -> (mine, theirs) -> the object put in hist
    in_monitor: bool = True            # can it run inside the monitor's Python process?

    def load(self, path: Path, name: str):
        if self.loader is None:
            raise LoadError(f"{path}: {self.name} agents cannot run inside the monitor")
        return self.loader(path, name)

    def host_command(self, source: str, name: str) -> list[str]:
        return python_host_command(self.name, source, name)


def _load_python(path, name):
    from .pyload import load_python

    return load_python(path, name)


def _load_builtin(path, name):
    from .builtins import strategy_for

    return strategy_for(name)


def _load_hy(path, name):
    from lisp_bridge.hy_loader import load_factory

    return load_factory(path, name)


def _hy_pairs():
    from lisp_bridge.hy_data import hist_pair

    return hist_pair


class _Hy(Language):
    def host_command(self, source: str, name: str) -> list[str]:
        from lisp_bridge.hy_loader import warm_library_cache

        warm_library_cache()
        # harness.host with the harness cache read-only (the process is the agent's)
        return [python_executable(), "-m", "lisp_bridge.hy_host", source, name]


class _Lisp(Language):
    def host_command(self, source: str, name: str) -> list[str]:
        from lisp_bridge.sbcl import host_command

        return host_command(Path(source), name)


PYTHON = Language("python", ".py", _load_python)
HY = _Hy("hy", ".hy", _load_hy, pairs=_hy_pairs)
LISP = _Lisp("lisp", ".lisp", None, in_monitor=False)
BUILTIN = Language("builtin", None, _load_builtin)

LANGUAGES = {language.name: language for language in (PYTHON, HY, LISP, BUILTIN)}
BY_SUFFIX = {language.suffix: language for language in LANGUAGES.values() if language.suffix}


def host_environment(token: str) -> dict[str, str]:
    """The environment of a host process: only what it needs, and a fixed hash seed so an
    agent that iterates over a set plays the same on every run."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": package_root(),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
        "PDH_TOKEN": token,
    }
    for name in ("PDHARNESS_CACHE", "XDG_CACHE_HOME", "HOME", "SBCL_HOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env
