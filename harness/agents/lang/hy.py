"""Hy agents: `.hy` files defining `(defn Name [hist score] ...)`, compiled to Python code
(harness/agents/lang/hy_loading.py) and served by harness.isolation.host, which then only
reads the harness cache. A Hy agent's hist holds Hy symbols; a Hy caller of the API passes
quoted forms and expects its result to print as a Lisp list."""
from __future__ import annotations

import os
import sys

# imports inside functions here are deferred (the host's image stays lean)

TYPE_CHECKING = False  # a host's zygote imports this: not pathlib (see language.py)
if TYPE_CHECKING:
    from pathlib import Path

from .language import CanRun, Language


class Hy(Language):
    name = "hy"
    runtime_name = "Hy"
    reads_cache = True   # compiled agents and libraries (harness/agents/cache.py)
    suffixes = (".hy",)
    new_choice = "hy"
    lisp_syntax = True
    static_read_limit = 64 << 10   # Hy's reader takes about 0.1 s per KiB
    hints = {
        "no-agent": "Define the agent at the top level: (defn KhosmoodLevinson [hist score] ...)",
        "bad-answer": "Return exactly 3 moves, each 'C or 'D: ['C 'C 'D]",
    }

    # Hy and its macro library hyrule: both compile the agent's file, so both are its runtime
    RUNTIME = ("hy", "hyrule")

    def can_run(self) -> CanRun:
        import importlib.util

        missing = [name for name in self.RUNTIME if importlib.util.find_spec(name) is None]
        if missing:
            return CanRun(False, f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'}"
                                 f" not installed for {sys.executable} "
                                 f"(pip install {' '.join(self.RUNTIME)})")
        return CanRun(True)

    def find_runtime_version(self) -> str:
        from importlib.metadata import PackageNotFoundError, version

        def of(name):
            try:
                return version(name)
            except PackageNotFoundError:   # imported from a checkout, not installed
                return getattr(__import__(name), "__version__", "unknown")

        return f"Hy {of('hy')}, hyrule {of('hyrule')}"

    def load(self, path: Path, name: str):
        from .hy_loading import load_factory

        return load_factory(path, name)

    def pairs(self):
        from .hy_loading import hist_pairs

        return hist_pairs()

    def host_command(self, source: str, name: str, memory: int | None) -> list[str]:
        from .hy_loading import warm_library_cache
        from .python_process import python_host_command

        warm_library_cache()  # Hy's own bytecode, which the host only reads
        return python_host_command(self.name, source, name)

    def sandbox_roots(self) -> list[str]:
        """The folders hy, hyrule and their reader's library are installed in."""
        import importlib.util

        roots = []
        for module in ("hy", "hyrule", "funcparserlib"):
            try:
                found = importlib.util.find_spec(module)
            except (ImportError, ValueError):
                found = None
            if found is not None and found.origin:
                roots.append(os.path.dirname(os.path.dirname(os.path.abspath(found.origin))))
        return roots

    def preload_in_host(self, path: str) -> None:
        from .hy_loading import hist_pairs, import_runtime, serve_read_only

        serve_read_only()  # the process is the agent's: nothing it touched enters the cache
        import_runtime(path)
        hist_pairs()

    def checked_code(self, path: Path, name: str):
        from .hy_loading import load_checked_code

        return load_checked_code(path, name)

    def definitions(self, source: str, path: Path):
        from .hy_definitions import hy_definitions

        return hy_definitions(source, path)

    def quote_call(self, name: str, hist: str, score: tuple[int, int]) -> str:
        return f"({name} [{hist}] [{score[0]} {score[1]}])"  # as Hy prints the pairs

    def describe_value(self, value) -> str | None:
        models = sys.modules.get("hy.models")  # a Hy value can only come from a loaded Hy
        if models is not None and type(value) is models.Keyword and type(value.name) is str:
            return ":" + value.name
        if models is not None and type(value) is models.Symbol:
            return "'" + str.__str__(value)
        if models is not None and type(value) in (models.Expression, models.List) and len(
                value) <= 8:  # a quoted form, `'(C X D)`, shown as written
            items = [_quoted_text(item, models) for item in value]
            if all(item is not None for item in items):
                text = " ".join(items)  # type: ignore[arg-type]
                return f"'({text})" if type(value) is models.Expression else f"'[{text}]"
        data = sys.modules.get("lisp_bridge.hy_data")  # hist's moves and pairs, as Hy prints them
        if data is not None and type(value) is data.Move:
            return str.__str__(value)
        if data is not None and type(value) is data.Pair and len(value) == 2 and all(
                type(move) is data.Move for move in value):
            return "(" + " ".join(str.__str__(move) for move in value) + ")"
        return None

    def spelled_move(self, item) -> str | None:
        """Hy keywords (`:C`) and the like."""
        if getattr(type(item), "__module__", "").startswith("hy."):
            from lisp_bridge.hy_data import move_from_hy  # only when a Hy value shows up

            return move_from_hy(item)
        return None

    def defined_function(self, function) -> bool:
        """Written in Hy (in a .hy file, at the Hy REPL, or evaluated where `hy` is
        imported): it then sees Hy moves in hist."""
        hy = sys.modules.get("hy")
        if hy is None:
            return False
        code = getattr(function, "__code__", None)
        if code is not None and code.co_filename.endswith(".hy"):
            return True
        return getattr(function, "__globals__", {}).get("hy") is hy

    def plain_data(self, value):
        if sys.modules.get("hy") is None:  # not called from Hy
            return value
        from lisp_bridge.hy_data import from_hy  # quoted forms to plain values

        return from_hy(value)

    def present(self, result_type) -> None:
        if sys.modules.get("hy") is not None:  # from Hy? it prints as a Lisp list
            from lisp_bridge.hy_data import register_standings_printer

            register_standings_printer(result_type)


LANGUAGE = Hy()


def _quoted_text(item, models) -> str | None:
    """How an atom inside a quoted Hy form prints there (`C`, `"C"`, `:C`, `1`); None for
    anything else (never the agent's own __repr__)."""
    if type(item) is models.Symbol:
        return str.__str__(item)
    if type(item) is models.String:
        return '"' + str.__str__(item).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if type(item) is models.Keyword and type(item.name) is str:
        return ":" + item.name
    if type(item) is models.Integer:
        return int.__repr__(item)
    return None
