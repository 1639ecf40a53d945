"""What agents may import, declared once (`--agent-package REQ`, the course file's
`agent-packages = [...]`): the standard library, Hy and hyrule (a Hy agent's prelude needs
them), and the declared distributions with everything they require, found through
importlib.metadata (each distribution's `Requires-Dist`, its top-level modules and files).
Nothing else of the monitor's environment (click, Jinja2, the harness's own libraries).

The monitor resolves the declaration here, once, and hands the result to every host
(`host_variables`): which top-level modules an agent may import and from which folder
(harness/agents/agent_imports.py serves them, and refuses every other installed one with
one line saying how to declare it), which site folders a host's world covers and which of
their entries it shows again (harness/isolation/world.py). A declared distribution that is
not installed is one HarnessError line before anything runs.
"""
from __future__ import annotations

import os
import re
import site
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache

from harness.core.errors import HarnessError
from harness.core.safe_text import line

# what every agent may import besides the standard library: Hy and hyrule, which a Hy
# agent's compiled code and prelude import (the Hy host serves them to Python agents too)
ALWAYS = ("hy", "hyrule")

from .agent_imports import COVER, MODULES, OWN_ALLOWED, OWN_REFUSED, SHOW, UNDECLARED

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares it: `Scikit_Learn` is `scikit-learn`."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Resolved:
    """A declaration, resolved against what is installed here."""

    distributions: tuple[str, ...]         # canonical names, the closure, sorted
    modules: dict[str, str]                # top-level module -> its site folder
    entries: tuple[str, ...]               # files and folders of those, in site folders
    undeclared: dict[str, str]             # installed top-level module -> its distribution
    site_folders: tuple[str, ...]          # every site folder this Python may read

    def host_variables(self) -> dict[str, str]:
        """What a host is told (see the module docstring)."""
        return {
            MODULES: "\n".join(f"{module}={folder}" for module, folder in
                               sorted(self.modules.items())),
            UNDECLARED: "\n".join(f"{module}={dist}" for module, dist in
                                  sorted(self.undeclared.items())),
            COVER: "\n".join(self.site_folders),
            SHOW: "\n".join(self.entries),
        }


@dataclass(frozen=True)
class _Named:
    """A requirement read without packaging (a Python with the harness copied in but not
    installed): its name alone, every version allowed, a marker taken as true."""

    name: str
    extras: frozenset = frozenset()
    specifier: tuple = ()
    marker: None = None


def parse_requirement(text: str):
    """packaging's Requirement of one declared line; HarnessError if it is none."""
    try:
        # packaging is a dependency, but a harness copied in without them may lack it
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:   # not installed with its dependencies: names are enough
        named = _NAME.match(str(text))
        if named is None:
            raise HarnessError(f"--agent-package {line(str(text))}: not a pip requirement") \
                from None
        return _Named(named.group(1))
    try:
        return Requirement(str(text))
    except InvalidRequirement as error:
        raise HarnessError(f"--agent-package {line(str(text))}: not a pip requirement "
                           f"(e.g. numpy or numpy>=2): {line(str(error).splitlines()[0])}") from None


def check_requirements(requirements) -> tuple[str, ...]:
    """The declared requirements as written, each checked to be a requirement (for the
    parameter table: a bad one is refused where it is given)."""
    return tuple(str(parse_requirement(text)) for text in requirements)


_RESOLVING = threading.Lock()


def resolve(requirements: tuple[str, ...]) -> Resolved:
    """The closure of ALWAYS and `requirements` over what is installed; HarnessError (one
    line) for a declared distribution that is not installed, or not in a declared version."""
    # A round opens its agents on 8 threads at once: unlocked, each would read every
    # installed distribution's metadata (0.2 s of CPU) before the first put it in the cache.
    with _RESOLVING:
        return _resolved(requirements)


@lru_cache(maxsize=16)
def _resolved(requirements: tuple[str, ...]) -> Resolved:
    from importlib import metadata  # `pdharness` starts light

    wanted = [(parse_requirement(text), True) for text in requirements]
    wanted += [(parse_requirement(name), False) for name in ALWAYS]
    found: dict[str, metadata.Distribution] = {}
    while wanted:
        requirement, declared = wanted.pop()
        key = canonical(requirement.name)
        if key in found:
            continue
        try:
            distribution = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            if declared:
                raise HarnessError(
                    f"agent package {line(str(requirement))} is not installed for "
                    f"{sys.executable}: pip install {line(str(requirement))!r} (agents "
                    "import from the Python that runs pdharness)") from None
            continue   # an optional dependency this machine does not have
        version = distribution.version
        if declared and requirement.specifier and not requirement.specifier.contains(
                version, prereleases=True):
            raise HarnessError(f"agent package {line(str(requirement))}: version {version} "
                               f"is installed for {sys.executable}")
        found[key] = distribution
        extras = set(requirement.extras)
        for needed in distribution.requires or ():
            inner = parse_requirement(needed)
            if inner.marker is None or any(
                    inner.marker.evaluate({"extra": extra}) for extra in extras or {""}):
                wanted.append((inner, False))
    folders = site_folders()
    modules: dict[str, str] = {}
    entries: list[str] = []
    for distribution in found.values():
        tops = list(_top_level(distribution, folders))
        for module, path in tops:
            modules.setdefault(module, os.path.dirname(path))
        entries += [path for _, path in tops] + _entries(distribution, folders)
    undeclared = {module: dist for module, dist in installed_modules().items()
                  if module not in modules and module not in OWN_ALLOWED}
    covered = cover_folders()
    entries += _own_packages_in(covered)
    return Resolved(tuple(sorted(found)), modules, tuple(sorted(set(entries))),
                    undeclared, tuple(covered))


def _own_packages_in(folders) -> list[str]:
    """The harness and lisp_bridge, when installed in a site folder: a host's world shows
    them again (a host needs them, and lisp_bridge.cl is the Hy agents' prelude)."""
    from harness.agents.lang.python_process import package_root  # `pdharness` starts light

    root = os.path.abspath(package_root())
    return [os.path.join(root, package) for package in ("harness", "lisp_bridge")
            if root in folders and os.path.isdir(os.path.join(root, package))]


def pinned(requirements: tuple[str, ...]) -> list[str]:
    """Each declared requirement pinned to the version installed here (`numpy==2.1.3`,
    extras and marker kept): what the autograder's image installs. HarnessError, as in
    `resolve`, for one that is not installed."""
    from importlib import metadata  # `pdharness` starts light

    resolve(requirements)   # each is installed, in a version it allows
    found = []
    for text in requirements:
        requirement = parse_requirement(text)
        extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
        marker = f"; {requirement.marker}" if requirement.marker else ""
        found.append(f"{requirement.name}{extras}=={metadata.version(requirement.name)}"
                     f"{marker}")
    return found


def site_folders() -> list[str]:
    """The monitor's own site folders (a virtual environment's, when it runs from one)."""
    # `pdharness` starts light
    from harness.agents.lang.python_process import site_folders as folders

    return folders()


def cover_folders() -> list[str]:
    """Every folder of installed libraries a host could read: the monitor's site folders,
    the base interpreter's (a venv's system site) and the user's."""
    folders = list(site_folders())
    try:
        folders += site.getsitepackages([sys.base_prefix, sys.base_exec_prefix])
    except (AttributeError, TypeError):
        pass
    user = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    if user:
        folders.append(user)
    real = []
    for folder in folders:
        if folder and os.path.isdir(folder) and not os.path.islink(folder):
            absolute = os.path.abspath(folder)
            if absolute not in real:
                real.append(absolute)
    return real


def installed_modules() -> dict[str, str]:
    """Every top-level module the monitor's site folders hold -> its distribution's name."""
    from importlib import metadata  # `pdharness` starts light

    found: dict[str, str] = {}
    for module, distributions in metadata.packages_distributions().items():
        if module.isidentifier() and not module.startswith("_") and distributions:
            found.setdefault(module, distributions[0])
    for own in OWN_REFUSED:
        found.setdefault(own, "pdharness")
    return found


def _inside(path: str, folders) -> str | None:
    for folder in folders:
        if os.path.dirname(path) == folder:
            return folder
    return None


def _top_level(distribution, folders):
    """(module, path) of each top-level module the distribution installs in a site folder."""
    names: set[str] = set()
    listed = distribution.read_text("top_level.txt")
    if listed:
        names.update(name.strip() for name in listed.splitlines() if name.strip())
    for file in distribution.files or ():
        parts = file.parts
        if not parts or parts[0] in ("..", "__pycache__") or ".dist-info" in parts[0] \
                or ".egg-info" in parts[0] or parts[0].endswith(".data"):
            continue
        if len(parts) > 1 and parts[-1].endswith((".py", ".so", ".pyd", ".hy")):
            names.add(parts[0])
        elif len(parts) == 1 and parts[0].endswith((".py", ".so", ".pyd")):
            names.add(parts[0].split(".")[0])
    base = str(distribution.locate_file(""))
    for name in sorted(names):
        if not name.isidentifier():
            continue
        for candidate in (name, f"{name}.py"):
            path = os.path.abspath(os.path.join(base, candidate))
            if os.path.exists(path) and _inside(path, folders):
                yield name, path
                break
        else:
            for entry in _listing(base):
                if entry.startswith(name + ".") and entry.endswith((".so", ".pyd")):
                    path = os.path.abspath(os.path.join(base, entry))
                    if _inside(path, folders):
                        yield name, path
                        break


@lru_cache(maxsize=32)
def _listing(folder: str) -> tuple[str, ...]:
    try:
        return tuple(os.listdir(folder))
    except OSError:
        return ()


def _entries(distribution, folders) -> list[str]:
    """The distribution's files and folders directly in a site folder: its modules, its
    metadata, the libraries wheels put beside them (numpy.libs)."""
    base = str(distribution.locate_file(""))
    metadata_dir = str(getattr(distribution, "_path", ""))   # its .dist-info (or .egg-info)
    firsts = {os.path.basename(metadata_dir)} if metadata_dir else set()
    if not metadata_dir.endswith(".egg-info"):   # an egg's files are its sources' names
        firsts |= {file.parts[0] for file in distribution.files or () if file.parts}
    kept = []
    for first in firsts:
        if first in ("..", "__pycache__") or first.endswith(".pth"):
            continue
        path = os.path.abspath(os.path.join(base, first))
        if os.path.lexists(path) and _inside(path, folders):
            kept.append(path)
    return kept
