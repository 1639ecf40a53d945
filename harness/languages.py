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


# How every Python process the monitor starts (hosts, the sandbox probe, the Hy cache
# helper) begins, given the package root and then `-m MODULE ARG...` or `-c CODE`. Nothing
# in the folder it runs from, nor in the folder holding the harness, may be imported: a
# student's `tempfile.py` there would otherwise run as the instructor. So the working folder
# ('' on sys.path) goes first thing, before any import, the harness and lisp_bridge are
# loaded from their own folders by name (never by putting their parent on sys.path), and
# the interpreter starts with -s (no user site). Not -I: it would also drop
# PYTHONHASHSEED, which keeps agents that iterate over sets reproducible.
_BOOT = """import sys
sys.path[:] = [entry for entry in sys.path if entry]
import importlib.util, runpy
root = sys.argv.pop(1)
for package in ("harness", "lisp_bridge"):
    folder = root + "/" + package
    found = importlib.util.spec_from_file_location(
        package, folder + "/__init__.py", submodule_search_locations=[folder])
    sys.modules[package] = importlib.util.module_from_spec(found)
    found.loader.exec_module(sys.modules[package])
how, what = sys.argv.pop(1), sys.argv.pop(1)
if how == "-c":
    exec(compile(what, "<pdharness>", "exec"), {"__name__": "__main__"})
else:
    runpy.run_module(what, run_name="__main__", alter_sys=True)
"""


def _isolated(*arguments: str, site: bool = True) -> list[str]:
    safe_path = ["-P"] if sys.version_info >= (3, 11) else []  # the bootstrap does it too
    # -S (hosts): no site-packages .pth files either (some import heavy modules, and every
    # MiB a host maps makes each game's fork dearer); harness/host.py puts the site folders
    # themselves on its path
    sites = ["-s"] if site else ["-S"]
    return [python_executable(), *sites, *safe_path, "-c", _BOOT, package_root(), *arguments]


def python_module_command(module: str, *arguments: str, site: bool = True) -> list[str]:
    """`python -m MODULE ARGUMENT...`, isolated from the working folder (see _BOOT)."""
    return _isolated("-m", module, *arguments, site=site)


def python_code_command(code: str) -> list[str]:
    """`python -c CODE`, isolated from the working folder (see _BOOT)."""
    return _isolated("-c", code)


def python_host_command(language: str, source: str, name: str) -> list[str]:
    return python_module_command("harness.host", language, source, name, site=False)


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

    def load(self, path: Path | None, name: str):
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
    from lisp_bridge.hy_loader import hist_pairs

    return hist_pairs()


class _Hy(Language):
    def host_command(self, source: str, name: str) -> list[str]:
        from lisp_bridge.hy_loader import warm_library_cache

        warm_library_cache()
        # harness.host with the harness cache read-only (the process is the agent's)
        return python_module_command("lisp_bridge.hy_host", source, name, site=False)


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
    env = {  # no PYTHONPATH: the harness is found by the bootstrap (see _BOOT)
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
        "PDH_TOKEN": token,
    }
    for name in ("PDHARNESS_CACHE", "XDG_CACHE_HOME", "HOME", "SBCL_HOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env
