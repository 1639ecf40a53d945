"""How the monitor starts a Python process: the hosts of Python, Hy and built-in agents,
the sandbox probe, the Hy cache helper. Each starts isolated from the folder the monitor
runs from (see _BOOT), with only the environment it needs (host_environment).
"""
from __future__ import annotations

import os
import site
import sys
from pathlib import Path


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
    # MiB a host maps makes each game's fork dearer); harness/isolation/host.py puts the monitor's
    # site folders themselves on its path (site_folders)
    sites = ["-s"] if site else ["-S"]
    return [python_executable(), *sites, *safe_path, "-c", _BOOT, package_root(), *arguments]


def python_module_command(module: str, *arguments: str, site: bool = True) -> list[str]:
    """`python -m MODULE ARGUMENT...`, isolated from the working folder (see _BOOT)."""
    return _isolated("-m", module, *arguments, site=site)


def python_code_command(code: str) -> list[str]:
    """`python -c CODE`, isolated from the working folder (see _BOOT)."""
    return _isolated("-c", code)


def python_host_command(kind: str, source: str, name: str) -> list[str]:
    """harness.isolation.host serving agent NAME of SOURCE; KIND is a language's name or
    "builtin"."""
    return python_module_command("harness.isolation.host", kind, source, name, site=False)


def package_root() -> str:
    """The folder holding the harness package, so a host finds it installed or not."""
    return str(Path(__file__).resolve().parents[3])


# The variable that tells a host (started with -S) the monitor's site folders.
SITE_FOLDERS = "PDH_SITE_FOLDERS"


def site_folders() -> list[str]:
    """The site folders of the Python running the monitor: a virtual environment's own
    when it runs from one. A host started with -S cannot find them itself: there
    site.getsitepackages() names the base interpreter's folders (a venv is known only to
    site.py's start-up, which -S skips), so hy and whatever an agent imports from the venv
    would not be found. The monitor tells it (SITE_FOLDERS), and the sandbox binds them."""
    if sys.flags.no_site and SITE_FOLDERS in os.environ:  # a monitor started by a host
        folders = os.environ[SITE_FOLDERS].split(os.pathsep)
    else:
        folders = site.getsitepackages()
    return [folder for folder in dict.fromkeys(folders) if folder and os.path.isdir(folder)]


def host_environment(token: str) -> dict[str, str]:
    """The environment of a host process: only what it needs, and a fixed hash seed so an
    agent that iterates over a set plays the same on every run."""
    env = {  # no PYTHONPATH: the harness is found by the bootstrap (see _BOOT)
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
        "PDH_TOKEN": token,
        SITE_FOLDERS: os.pathsep.join(site_folders()),
    }
    # what a language's own host needs besides: Language.host_environment
    for name in ("PDHARNESS_CACHE", "XDG_CACHE_HOME", "HOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env
