"""Loading a Python agent file: compile once, execute fresh for every game."""
from __future__ import annotations

import random
import sys
import types

from harness.core.errors import LoadError
from harness.core.interrupts import pass_on_a_stop

from .private_random import fresh_namespace

TYPE_CHECKING = False  # a host's zygote imports this: nothing it need not (see host.py)
if TYPE_CHECKING:
    from pathlib import Path


def read_source(path: Path | str) -> str:
    """The text of an agent file: the bytes this run plays (harness/agents/agent_files.py,
    `hand_over`), else the file, read as a regular file (no link, FIFO or device), capped."""
    from .agent_files import handed_over, read_agent_file  # the host's image stays lean

    data = handed_over(path)
    if data is None:
        data = read_agent_file(path)
    try:
        # as read_text does: universal newlines
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as error:
        raise LoadError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error


def compile_python(path: Path):
    # a UTF-8 byte-order mark (as Windows editors save) is Python's own encoding mark: the
    # interpreter runs such a file, so the harness does too
    source = read_source(path).removeprefix("\ufeff")
    try:
        return compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:
        raise LoadError(f"{path}:{error.lineno}: syntax error: {error.msg}") from error
    except ValueError as error:  # e.g. null bytes
        raise LoadError(f"{path}: cannot compile: {error}") from error


def line_in(path: Path | str, tb) -> str:
    """':N' for the deepest traceback frame inside the agent's file, if any."""
    import traceback  # the host's image stays lean

    lines = [frame.lineno for frame in traceback.extract_tb(tb) if frame.filename == str(path)]
    return f":{lines[-1]}" if lines else ""


def _defines(namespace, file_name: str) -> str:
    """'; it defines X: name the file X.py' for a file an LMS renamed (`KhosmoodLevinson
    (1).py`), from the functions the file itself defined (read without calling them)."""
    from pathlib import PurePath  # the host's image stays lean

    defined = [key for key, value in namespace.items() if type(key) is str
               and key.isidentifier() and not key.startswith("_")
               and type(value) is types.FunctionType
               and value.__code__.co_filename == file_name]
    if not defined or len(defined) > 3:
        return ""
    if len(defined) > 1:
        return f"; it defines {', '.join(defined)}"
    return f"; it defines {defined[0]}: name the file {defined[0]}{PurePath(file_name).suffix}"


def code_factory(code, path: Path | str, name: str, check: bool = True,
                 namespaces=fresh_namespace):
    """A factory(rng, moves_per_turn) -> agent function, running `code` fresh each call.
    With `check`, it runs once now, so a broken file is a load error at once. `namespaces`
    (module name, file, rng) -> the module's fresh globals (a game's process: what a host
    made ahead, harness/agents/private_random.py's MadeAhead). The code it runs is its
    `code` attribute: a host's zygote makes the factory with none, and each game's process
    gives it the code it unmarshalled (harness/isolation/host.py)."""
    module_name, file_name = f"pdharness_agent_{name}", str(path)

    def factory(rng, moves_per_turn):
        namespace = namespaces(module_name, file_name, rng)
        try:
            exec(factory.code, namespace)  # type: ignore[attr-defined]
        except BaseException as error:  # agent code may raise SystemExit and the like
            pass_on_a_stop(error)
            detail = str(error).splitlines()[0] if str(error) else ""
            raise LoadError(f"{path}{line_in(path, sys.exc_info()[2])}: "
                            f"{type(error).__name__}{': ' + detail if detail else ''} "
                            "while loading") from error
        function = namespace.get(name)
        if function is None:
            raise LoadError(f"{path}: defines no function named {name} (the file must "
                            f"define a function named after it){_defines(namespace, file_name)}")
        if isinstance(function, type):
            return agent_instance_move(function, path, name)
        if not callable(function):
            raise LoadError(f"{path}: {name} is a {type(function).__name__}, not a function")
        return function

    factory.source = file_name  # type: ignore[attr-defined]  # the code's file name: errors' frames
    factory.code = code  # type: ignore[attr-defined]
    if check:
        factory(random.Random(0), 3)
    return factory


def agent_instance_move(cls, path: Path | str, name: str):
    """An agent written as a class: a fresh instance for this game (its __init__ is the
    game's start), whose `move(hist, score)` is called every turn."""
    move = getattr(cls, "move", None)
    if not callable(move):
        raise LoadError(f"{path}: class {name} has no method move(self, hist, score), which "
                        "is called every turn")
    try:
        instance = cls()
    except BaseException as error:  # agent code: anything it raises is its load error
        pass_on_a_stop(error)
        detail = str(error).splitlines()[0] if str(error) else ""
        raise LoadError(f"{path}{line_in(path, sys.exc_info()[2])}: {name}() failed: "
                        f"{type(error).__name__}{': ' + detail if detail else ''}") from error
    return instance.move


def load_python(path: Path, name: str):
    return code_factory(compile_python(path), path, name)


def load_checked_code(path: Path, name: str):
    """The code object of an agent file that loads (runs agent code: a host does this in a
    throwaway child, never in its zygote)."""
    code = compile_python(path)
    code_factory(code, path, name)
    return code
