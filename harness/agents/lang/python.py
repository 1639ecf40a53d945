"""Python agents: `.py` files defining `Name(hist, score)`, served by harness.isolation.host."""
from __future__ import annotations

# imports inside functions here are deferred (the host's image stays lean)

TYPE_CHECKING = False  # a host's zygote imports this: not pathlib (see language.py)
if TYPE_CHECKING:
    from pathlib import Path

from .language import Language


class Python(Language):
    name = "python"
    runtime_name = "Python"
    suffixes = (".py",)
    new_choice = "py"
    near_misses = (".ipynb",)
    pair_separator = ", "
    hints = {
        "no-agent": "Define the agent at the top level: def KhosmoodLevinson(hist, score):",
        "bad-answer": 'Return exactly 3 moves, each "C" or "D": return ["C", "C", "D"]',
    }

    def find_runtime_version(self) -> str:
        import platform

        return f"{platform.python_implementation().replace('CPython', 'Python')} " \
            f"{platform.python_version()}"   # hosts run the monitor's own interpreter

    def load(self, path: Path, name: str):
        from ..pyload import load_python

        return load_python(path, name)

    def host_command(self, source: str, name: str, memory: int | None) -> list[str]:
        from .python_process import python_host_command

        return python_host_command(self.name, source, name)

    def checked_code(self, path: Path, name: str):
        from ..pyload import load_checked_code

        return load_checked_code(path, name)

    def definitions(self, source: str, path: Path):
        from .python_definitions import python_definitions

        return python_definitions(source, path)

    def quote_pair(self, mine: str, theirs: str) -> str:
        return f"('{mine}', '{theirs}')"

    def quote_call(self, name: str, hist: str, score: tuple[int, int]) -> str:
        return f"{name}([{hist}], [{score[0]}, {score[1]}])"


LANGUAGE = Python()
