"""What a sandbox shows its host: the host paths bound read-only (each at its own path),
the folders covered by empty ones, the agent's own file or bundle, the cache."""
from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from dataclasses import dataclass, field

from harness.agents.agent_files import source_memfd
from harness.agents.bundles import snapshots_root
from harness.agents.cache import cache_dir, compiled_agents_dir
from harness.agents.lang.python_process import package_root, python_executable, site_folders
from harness.agents.specs import AgentSpec

from .world import KEEP, kept_paths


@dataclass
class Views:
    """The host paths bound read-only (each at its own path), and the agent's file."""

    roots: list[str]                   # directories and files bound as they are
    agent_file: str | None             # absolute path; a read-only copy appears there
    hidden: list[str] = field(default_factory=list)  # bound folders covered by empty ones
    cache: str | None = None
    spec: AgentSpec | None = None
    bundle: str | None = None          # a bundle's snapshot, bound read-only at its path

    @classmethod
    def of(cls, spec) -> "Views":
        cache = cache_of(spec)
        roots = system_roots() + python_roots() + package_roots() + language_roots(spec)
        if cache:
            roots.append(cache)
        roots = _outermost(roots)
        agent_file = bundle = None
        if spec.is_bundle:   # the file is in its bundle's folder
            bundle = _bundle_folder(spec)
        elif spec.is_file:
            agent_file = os.path.abspath(spec.source)
        hidden = []
        for folder in (*_bundled_agents_dirs(),
                       os.path.dirname(agent_file) if agent_file else None,
                       _compiled_agents_dir() if cache else None,
                       _snapshots_root() if cache else None):
            if folder and inside(folder, roots) and folder not in hidden:
                hidden.append(folder)
        return cls(roots, agent_file, hidden, cache, spec, bundle)

    def open_agent_file(self) -> int | None:
        """The bytes the run plays (AgentSpec.content), for --ro-bind-data at the file's path."""
        if self.agent_file is None:
            return None
        assert self.spec is not None  # an agent file's views are made from its spec
        return source_memfd(self.spec.content())

    def kept(self) -> dict[str, str]:
        """What each game's world must keep of /tmp (harness/isolation/world.py), for its host."""
        paths = kept_paths(self.roots)   # the cache among them only if it is read: cache_of
        return {KEEP: paths} if paths else {}


def cache_of(spec) -> str | None:
    """The cache folder this agent's host reads, if its language uses one: bound for it, and
    checked for its user, only then (a folder the host never reads must not stop its world:
    one under a private /tmp folder could not be bound)."""
    language = spec.file_language
    return cache_folder() if language is not None and language.reads_cache else None


def system_roots() -> list[str]:
    roots = ["/usr"]
    for path in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.isdir(path) and not os.path.islink(path):
            roots.append(path)
    if os.path.exists("/etc/ld.so.cache"):
        roots.append("/etc/ld.so.cache")  # where the dynamic linker finds libraries
    return roots


def python_roots() -> list[str]:
    """The interpreter, its standard library and its site folders (those the host is told
    to use, a virtual environment's included)."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(site_folders())
    paths = sysconfig.get_paths()
    roots.update(paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")
                 if key in paths)
    roots.add(os.path.realpath(python_executable()))
    return [root for root in roots if root and os.path.exists(root)]


def package_roots() -> list[str]:
    """The harness and lisp_bridge packages, not the folder that holds them."""
    root = package_root()
    return [path for path in (os.path.join(root, "harness"), os.path.join(root, "lisp_bridge"))
            if os.path.isdir(path)]


def language_roots(spec) -> list[str]:
    """What the host of the agent's language needs besides Python (Language.sandbox_roots)."""
    language = spec.file_language
    return language.sandbox_roots() if language is not None else []


def cache_folder() -> str | None:
    try:
        return str(cache_dir().resolve())
    except OSError:
        return None


def _compiled_agents_dir() -> str | None:
    try:
        return str(compiled_agents_dir().resolve())
    except OSError:
        return None


def _bundle_folder(spec) -> str:
    return os.path.abspath(spec.bundle().folder)


def _snapshots_root() -> str | None:
    """Where bundles' snapshots are kept: hidden, but for the agent's own, should a cache
    bound for the host lie over it."""
    try:
        return os.path.realpath(snapshots_root())
    except OSError:
        return None


def _bundled_agents_dirs() -> list[str]:
    """The bundled example agents: where they are imported from, and an installed copy in
    the site folders the sandbox shows (`pip install .` puts one there)."""
    found = []
    try:
        spec = importlib.util.find_spec("student_agents")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        found.append(os.path.dirname(os.path.abspath(spec.origin)))
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        folder = os.path.join(paths.get(key, ""), "student_agents")
        if paths.get(key) and os.path.isdir(folder) and folder not in found:
            found.append(folder)
    return found


def inside(path: str, roots) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _outermost(paths) -> list[str]:
    """Each path once, without those already inside another (binding those adds nothing)."""
    kept: list[str] = []
    for path in sorted({os.path.abspath(p) for p in paths}, key=lambda p: (p.count("/"), p)):
        if not inside(path, kept):
            kept.append(path)
    return kept


def ancestors(path: str) -> list[str]:
    parts, found = path.strip("/").split("/")[:-1], []
    for depth in range(1, len(parts) + 1):
        found.append("/" + "/".join(parts[:depth]))
    return found
