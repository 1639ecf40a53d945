"""The package's shape, as the import graph shows it: no module imports, directly or through
others, a module that imports it back, and click is the command line's alone.

The graph is grimp's (the one import-linter builds for setup.cfg's contracts), which counts
imports inside functions too: an import deferred to keep `import harness` light is still a
dependency, and a cycle through it is still a cycle.
"""
from __future__ import annotations

import pytest

from conftest import IN_CI


@pytest.fixture(scope="module")
def graph():
    try:
        import grimp
    except ImportError:
        message = "grimp is not installed (pip install '.[test]': import-linter brings it)"
        if IN_CI:
            pytest.fail(message + " - CI must install it", pytrace=False)
        pytest.skip(message)
    return grimp.build_graph("harness", "lisp_bridge", include_external_packages=True)


def _ours(name: str) -> bool:
    return name.split(".")[0] in ("harness", "lisp_bridge")


def _components(graph, ours=_ours) -> list[list[str]]:
    """The strongly connected components of more than one module among the modules that
    are `ours` (Tarjan's algorithm, iterative: the graph has a few hundred modules)."""
    modules = sorted(m for m in graph.modules if ours(m))
    edges = {m: sorted(n for n in graph.find_modules_directly_imported_by(m) if ours(n))
             for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            for at in range(position, len(edges[node])):
                after = edges[node][at]
                if after not in index:
                    work.append((node, at + 1))
                    work.append((after, 0))
                    break
                if after in on_stack:
                    low[node] = min(low[node], index[after])
            else:
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    return found


def _cycle_through(graph, component: list[str]) -> str:
    """One cycle of the component, as a chain of imports with their lines:
    `a -> b (line 3) -> a (line 9)`."""
    members = set(component)
    start = component[0]
    # breadth-first from start's imports back to start, inside the component
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for after in sorted(graph.find_modules_directly_imported_by(node)):
                if after not in members or after in came_from:
                    continue
                came_from[after] = node
                following.append(after)
        if start in came_from:
            break
        frontier = following
    chain = [start]
    while True:
        chain.append(came_from[chain[-1]])
        if chain[-1] == start:
            break
    chain.reverse()
    shown = [chain[0]]
    for importer, imported in zip(chain, chain[1:], strict=False):
        lines = sorted({detail["line_number"] for detail in
                        graph.get_import_details(importer=importer, imported=imported)})
        shown.append(f"{imported} (line {', '.join(map(str, lines)) or '?'})")
    return " -> ".join(shown)


def test_no_module_imports_itself_through_others(graph):
    components = _components(graph)
    assert not components, "import cycles among our modules:\n" + "\n".join(
        f"- {len(component)} modules, e.g. {_cycle_through(graph, component)}"
        for component in components)


def test_click_is_imported_only_under_harness_cli(graph):
    outside = sorted(module for module in graph.find_modules_that_directly_import("click")
                     if module != "harness.cli" and not module.startswith("harness.cli."))
    assert not outside, "click imported outside harness.cli by: " + ", ".join(outside)


def test_the_cycle_finder_finds_cycles(tmp_path):
    """The check above can fail: a package with a cycle made for the purpose."""
    import importlib
    import sys

    grimp = pytest.importorskip("grimp")
    package = tmp_path / "cyclic_example"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from . import b\n")
    (package / "b.py").write_text("from .c import g\n")
    (package / "c.py").write_text("from cyclic_example.a import f\ng = f\n")
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    try:
        example = grimp.build_graph("cyclic_example")
    finally:
        sys.path.remove(str(tmp_path))
    components = _components(example, lambda name: name.startswith("cyclic_example"))
    assert components == [["cyclic_example.a", "cyclic_example.b", "cyclic_example.c"]]
    chain = _cycle_through(example, components[0])
    assert chain.startswith("cyclic_example.a -> cyclic_example.b (line 2) -> ")
    assert chain.endswith("-> cyclic_example.a (line 1)")


# the command line's modules are named by their commands (`tournament`, `experiment`): the
# CLI finds a command's module by its name, whatever a module of another layer is called
NAMED_BY_THEIR_COMMAND = "harness.cli.commands."


def test_no_two_modules_share_a_name(graph):
    """A module's name says what it holds: two modules of one name hold different things
    (two rounds.py, three report.py and two session.py once were such). Packages and
    `__main__` aside."""
    from collections import defaultdict

    ours = [m for m in graph.modules if _ours(m)]
    packages = {m.rsplit(".", 1)[0] for m in ours if "." in m}
    by_name = defaultdict(list)
    for module in ours:
        if module in packages or module.startswith(NAMED_BY_THEIR_COMMAND):
            continue
        by_name[module.rsplit(".", 1)[-1]].append(module)
    shared = {name: sorted(modules) for name, modules in by_name.items()
              if len(modules) > 1 and name != "__main__"}
    assert not shared, f"modules sharing a name: {shared}"
