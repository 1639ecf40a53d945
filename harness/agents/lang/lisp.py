"""Common Lisp agents: `.lisp` files defining `(defun Name (hist score) ...)`, served by
a real SBCL (lisp_bridge/sbcl_host.lisp), never loaded in the monitor. All Lisp agents of
a course share one image in the original harness, so a file's every name must start with
the agent's."""
from __future__ import annotations

import os
import re

# imports inside functions here are deferred (the host's image stays lean)

TYPE_CHECKING = False  # a Python host's zygote imports this: not pathlib (see language.py)
if TYPE_CHECKING:
    from pathlib import Path

from .language import CanRun, Language, last_line

_FRAME = re.compile(r"\s*\d+: fp=0x")   # a frame of SBCL's fatal backtrace
# the compiler's notes on the agent's file, which sbcl_host.lisp writes to the same output
# when the game starts: never what the process died of
_COMPILER_NOTE = re.compile(r"; (style )?warning: ")


class Lisp(Language):
    name = "lisp"
    runtime_name = "SBCL"
    reads_cache = True   # compiled agents and libraries (harness/agents/cache.py)
    suffixes = (".lisp",)
    new_choice = "lisp"
    near_misses = (".lsp", ".cl", ".l")
    runs_in_monitor = False
    utf8_only = False            # SBCL reads a file as UTF-8 whatever it holds
    shares_one_image = True
    imports_python = False   # SBCL loads no Python: the agent packages do not apply
    hints = {
        "no-agent": "Define the agent at the top level: (defun KhosmoodLevinson (hist score) ...)",
        "bad-answer": "Return a list of exactly 3 moves, the symbols C or D: (list 'C 'C 'D)",
    }

    system_packages = ("sbcl",)

    def can_run(self) -> CanRun:
        from lisp_bridge import sbcl

        return CanRun(True) if sbcl.available() else CanRun(False, sbcl.missing_message())

    def find_runtime_version(self) -> str:
        from lisp_bridge import sbcl

        return sbcl.version()   # "SBCL 2.2.9.debian", as `sbcl --version` says it

    def host_environment(self) -> dict[str, str]:
        """Where SBCL finds its core and contribs, when the monitor was told."""
        return {"SBCL_HOME": os.environ["SBCL_HOME"]} if "SBCL_HOME" in os.environ else {}

    def last_words(self, output: str) -> str | None:
        """SBCL's fatal errors ("Heap exhausted, game over.") end in a backtrace of frames
        like "  3: fp=0x... pc=0x... NAME": the line before them says what happened."""
        return last_line("\n".join(line for line in output.splitlines()
                                    if not _FRAME.match(line) and not _COMPILER_NOTE.match(line)))

    def host_command(self, source: str, name: str, memory: int | None) -> list[str]:
        from pathlib import Path  # not at the top: a Python host's zygote imports this

        from harness.core.errors import LoadError
        from lisp_bridge import sbcl

        from ..cache import cache_dir

        try:
            return sbcl.host_command(Path(source), name, cache_dir(), memory)
        except sbcl.SbclError as error:
            raise LoadError(str(error)) from error

    def sandbox_roots(self) -> list[str]:
        """SBCL lives under /usr when installed from Debian; elsewhere bind its runtime
        and its home (the folder with sbcl.core and contribs)."""
        from lisp_bridge import sbcl

        roots = []
        program = sbcl.program()
        if program:
            program = os.path.realpath(program)
            roots.append(program)
            home = os.path.join(os.path.dirname(os.path.dirname(program)), "lib", "sbcl")
            if os.path.isdir(home):
                roots.append(home)
        if os.environ.get("SBCL_HOME") and os.path.isdir(os.environ["SBCL_HOME"]):
            roots.append(os.path.abspath(os.environ["SBCL_HOME"]))
        return roots

    def fold_name(self, name: str) -> str:
        return name.upper()  # Lisp's reader upcases names

    def definitions(self, source: str, path: Path):
        from .lisp_definitions import lisp_definitions

        return lisp_definitions(source, path)

    def quote_call(self, name: str, hist: str, score: tuple[int, int]) -> str:
        return f"({name} '({hist}) '({score[0]} {score[1]}))"


LANGUAGE = Lisp()
