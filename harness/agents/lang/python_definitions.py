"""The definitions of a Python agent file, read through `ast` (never run)."""
from __future__ import annotations

import ast
from pathlib import Path

from .definitions import Definitions, Function, NotReadHere, Unreadable


def python_definitions(source: str, path: Path) -> Definitions:
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as error:
        raise Unreadable(error.lineno, error.msg) from error
    except ValueError as error:  # null bytes
        raise Unreadable(None, str(error)) from error
    except (RecursionError, MemoryError):  # CPython's compile stops where its parse does
        raise NotReadHere("nested too deeply for Python's parser") from None
    found = Definitions()
    for node in _module_level(tree.body):
        if isinstance(node, ast.Import):
            found.imports += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.imports.append(node.module)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.functions.append(Function(node.name, node.name, node.lineno,
                                            two_arguments=_takes_two(node.args)))
        elif isinstance(node, ast.ClassDef):  # an agent class: move(self, hist, score)
            moves = [item for item in node.body if isinstance(item, ast.FunctionDef)
                     and item.name == "move"]
            found.functions.append(Function(node.name, node.name, node.lineno, two_arguments=(
                bool(moves) and _method_takes_two(moves[0].args))))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            # Name = lambda hist, score: ..., or Name = make_agent(): a binding the loader
            # accepts if it is callable (which only running it tells)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            lambda_ = isinstance(value, ast.Lambda)
            for target in targets:
                if isinstance(target, ast.Name):
                    found.functions.append(Function(
                        target.id, target.id, node.lineno, bound_only=not lambda_,
                        two_arguments=(isinstance(value, ast.Lambda) and _takes_two(value.args))))
    return found


def _module_level(body):
    """Statements run when the module loads, including those under if/try/with."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                yield from _module_level(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _module_level(handler.body)


def _method_takes_two(arguments: ast.arguments) -> bool:
    """move(self, hist, score): two arguments after self."""
    positional = arguments.posonlyargs + arguments.args
    if not positional:
        return arguments.vararg is not None
    return _takes_two(ast.arguments(posonlyargs=[], args=positional[1:],
                                    vararg=arguments.vararg, kwonlyargs=[], kw_defaults=[],
                                    defaults=arguments.defaults[-(len(positional) - 1):]
                                    if len(positional) > 1 else []))


def _takes_two(arguments: ast.arguments) -> bool:
    positional = len(arguments.posonlyargs) + len(arguments.args)
    required = positional - len(arguments.defaults)
    return required <= 2 and (positional >= 2 or arguments.vararg is not None)
