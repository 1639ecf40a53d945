"""What an agent's `import` reaches: the standard library, its own folder, and the
libraries the course declared (harness/agents/agent_environment.py resolves them in the
monitor); every other installed library fails to load with one line saying how to declare
it. A host's zygote imports this (no typing, no pathlib: see harness/isolation/host.py).

Three layers, each closing what the one before cannot:
- the host's import path holds no site folder at all: a declared library's top-level
  module is found by `DeclaredLibraries`, last on sys.meta_path, in its own site folder
  only, and an installed undeclared one is refused there (so `importlib.import_module`,
  `__import__` and a library's own imports all see the same set);
- the agent's builtins' `__import__` (harness/agents/private_random.py) refuses by name a
  module the host itself already imported (`harness`, or click in the monitor under
  `--isolation none`), which sys.modules would otherwise hand over without asking a finder;
- the files: a host's world covers every site folder and shows again only the declared
  distributions' entries (harness/isolation/world.py), so an agent that puts a site folder
  back on sys.path, or reads a file by its path, finds nothing else there.
"""
from __future__ import annotations

import os
import sys

MODULES = "PDH_AGENT_MODULES"        # "module=folder" lines: what agents may import, where
UNDECLARED = "PDH_AGENT_UNDECLARED"  # "module=distribution" lines: installed, not declared
COVER = "PDH_WORLD_COVER"            # site folders a host's world covers, one a line
SHOW = "PDH_WORLD_SHOW"              # their entries it shows again, one a line
PREIMPORT = "PDH_AGENT_PREIMPORT"    # the declared modules the agent's file imports

# our own package an agent may import: the Common Lisp prelude for Hy agents (lisp_bridge.cl)
OWN_ALLOWED = ("lisp_bridge",)
# our own packages no agent may import (a host imports them for itself)
OWN_REFUSED = ("harness", "student_agents")

_STANDARD = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(
    sys.builtin_module_names)


def how_to_declare(distribution: str) -> str:
    """The one way to say it, in the course file's words and the command line's."""
    return (f'add agent-packages = ["{distribution}"] to the course file '
            f"(or give --agent-package {distribution})")


def refusal(module: str, distribution: str) -> str:
    """The one line an undeclared import fails with."""
    if module in OWN_REFUSED:
        return f"{module} is pdharness's own package, which agents cannot import"
    return (f"{module} is not among the libraries agents may import (the standard "
            f"library, hy, hyrule and the declared agent packages): "
            f"{how_to_declare(distribution)}")


class Declared:
    """The declaration as a host (or the monitor, under `none`) holds it."""

    def __init__(self, modules: dict[str, str], undeclared: dict[str, str]):
        self.modules = modules          # allowed top-level module -> its site folder
        self.undeclared = undeclared    # installed, undeclared module -> its distribution

    def allowed(self, top: str) -> bool:
        return top in self.modules or top in _STANDARD or top in OWN_ALLOWED

    def refused(self, name: str, globals_) -> str | None:
        """Why the agent's `import name` (absolute) is refused, or None. A name the host
        imported for itself, or an installed library not declared; a module of that name
        in the agent's own folder is the agent's."""
        top = name.partition(".")[0]
        if self.allowed(top):
            return None
        known = top in self.undeclared
        if not known and top not in sys.modules:
            return None   # the agent's own module, or nothing: the import system says
        if _in_own_folder(top, globals_):
            return None
        return refusal(top, self.undeclared.get(top, top))


def _in_own_folder(top: str, globals_) -> bool:
    """Whether the agent's own folder (its file's) holds a module `top`."""
    source = globals_.get("__file__") if isinstance(globals_, dict) else None
    if not isinstance(source, str):
        return False
    folder = os.path.dirname(source) or "."
    return any(os.path.exists(os.path.join(folder, top + suffix))
               for suffix in ("", ".py", ".hy"))


declared: Declared | None = None   # None: nothing is refused (trusted callers, a hand start)


class DeclaredLibraries:
    """A meta path finder: a declared library's top-level module, from its own site folder
    (no site folder is on sys.path); ModuleNotFoundError, with the one line, for an
    installed one that is not declared. Also the declared distributions' metadata, for
    importlib.metadata (a library asking its own version)."""

    def __init__(self, held: Declared):
        self.held = held

    def find_spec(self, name, path=None, target=None):
        if path is not None or "." in name:
            return None   # a submodule: its package's own __path__ finds it
        folder = self.held.modules.get(name)
        if folder is not None:
            from importlib.machinery import PathFinder  # the host's image stays lean

            return PathFinder.find_spec(name, [folder], target)
        distribution = self.held.undeclared.get(name)
        if distribution is not None:
            raise ModuleNotFoundError(refusal(name, distribution), name=name)
        return None

    def find_distributions(self, context=None):
        # the host's image stays lean
        from importlib.metadata import DistributionFinder, MetadataPathFinder

        context = context or DistributionFinder.Context()
        folders = sorted(set(self.held.modules.values()))
        found = MetadataPathFinder.find_distributions(
            DistributionFinder.Context(name=context.name, path=folders))
        allowed = set(self.held.modules)
        return (distribution for distribution in found
                if _tops(distribution) & allowed)


def _tops(distribution) -> set[str]:
    listed = distribution.read_text("top_level.txt") or ""
    names = {line.strip() for line in listed.splitlines() if line.strip()}
    for file in distribution.files or ():
        if file.parts and file.parts[0] not in ("..", "__pycache__"):
            names.add(file.parts[0].split(".")[0])
    return names


def _pairs(text: str) -> dict[str, str]:
    found = {}
    for line in text.split("\n"):
        key, equals, value = line.partition("=")
        if equals and key:
            found[key] = value
    return found


def serve_from_environment() -> bool:
    """In a host, before anything imports a library: the declaration the monitor passed
    (MODULES, UNDECLARED) made this process's import system; False when none was passed
    (a host started by hand: the caller puts the site folders on the path)."""
    global declared
    modules = os.environ.pop(MODULES, None)
    undeclared = os.environ.pop(UNDECLARED, "")
    if modules is None:
        return False
    declared = Declared(_pairs(modules), _pairs(undeclared))
    sys.meta_path.append(DeclaredLibraries(declared))
    return True


def declare_in_monitor(modules: dict[str, str], undeclared: dict[str, str]) -> None:
    """`--isolation none`: agents run in the monitor, whose import path has every library
    it uses; only their own `import` statements are held to the declaration (trusted code:
    a library they call, or importlib, still reaches the rest)."""
    global declared
    declared = Declared(dict(modules), dict(undeclared))


def preimport(names) -> None:
    """Import, in a host's zygote, the declared libraries the agent's file imports at its
    top level (found by reading it: harness/agents/lang's `top_level_imports`), so that
    each game's process finds them imported and pays only its module body. A library
    that fails here fails again in the agent's own import, as its load error."""
    held = declared
    if held is None:
        return
    import importlib  # the host's image stays lean

    for name in names:
        top = name.partition(".")[0]
        if top in held.modules:
            try:
                importlib.import_module(name)
            except BaseException:   # the library's own failure: the agent's load says it
                pass
