"""Loading a Hy agent: compile once, execute fresh for every game.

Compiling Hy is slow (a file that requires hyrule takes ~2 s when no bytecode may be
written), so the compiled code is kept in the harness cache, keyed by the file's content,
Hy's version and Python's: a second load of an unchanged file reads it back in milliseconds,
and any change to the file compiles it again. The cache holds only what this process
compiled from the agent's own source; where the cache cannot be written (inside the
sandbox it is read-only) the agent is compiled on every load.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
import types
from pathlib import Path

from harness.errors import LoadError
from harness.pyload import code_factory, read_source


def cache_file(source: str) -> Path | None:
    import hy

    from harness.cache import cache_dir

    key = hashlib.sha256("\0".join((source, hy.__version__, sys.version)).encode()).hexdigest()
    try:
        return cache_dir() / "hy" / f"{key[:32]}.code"
    except OSError:
        return None


def compile_hy(path: Path, source: str):
    import hy  # noqa: F401  (sets up Hy's compiler)
    from hy.compiler import hy_compile
    from hy.errors import HyError
    from hy.reader import HyReader, read_many

    module = types.ModuleType(f"pdharness_agent_{path.stem}")
    module.__file__ = str(path)
    try:
        tree = read_many(source, filename=str(path), skip_shebang=True, reader=HyReader())
        return compile(hy_compile(tree, module), str(path), "exec", dont_inherit=True)
    except HyError as error:
        line = getattr(error, "lineno", None)
        message = getattr(error, "msg", None) or str(error).splitlines()[0]
        raise LoadError(f"{path}{':' + str(line) if line else ''}: "
                        f"Hy {type(error).__name__}: {' '.join(str(message).split())}")
    except SyntaxError as error:
        raise LoadError(f"{path}:{error.lineno}: syntax error: {error.msg}")
    except Exception as error:  # a macro that fails while compiling
        raise LoadError(f"{path}: does not compile: {type(error).__name__}: {error}")


def _cached(target: Path | None):
    if target is None or not target.exists():
        return None
    try:
        return marshal.loads(target.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _store(target: Path | None, code) -> None:
    if target is None:
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(dir=target.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(marshal.dumps(code))
        os.chmod(scratch, 0o644)  # sandboxed hosts read it under a user id of their own
        os.replace(scratch, target)
    except OSError:
        pass  # a read-only cache (the sandbox's): compile again next time


def load_code(path: Path):
    source = read_source(path)
    target = cache_file(source)
    code = _cached(target)
    if code is None:
        code = compile_hy(path, source)
        _store(target, code)
    return code


def use_bytecode_cache() -> None:
    """Keep Python bytecode of Hy libraries (hyrule compiles in ~1.3 s) in the harness
    cache, even where PYTHONDONTWRITEBYTECODE is set, as it is on the project's machines."""
    from harness.cache import cache_dir

    if sys.pycache_prefix is None:
        sys.pycache_prefix = str(cache_dir() / "pycache")
    sys.dont_write_bytecode = False


def warm_library_cache() -> None:
    """Compile hy and hyrule into the cache from the monitor (they are libraries, not agent
    code), so sandboxed hosts, whose view of the cache is read-only, find them compiled."""
    use_bytecode_cache()
    import hy  # noqa: F401
    import hyrule  # noqa: F401


def load_factory(path: Path, name: str):
    """factory(rng, moves_per_turn) -> the agent's function, fresh each call."""
    use_bytecode_cache()
    import hy  # noqa: F401  (Hy's runtime: the compiled code imports from it)

    return code_factory(load_code(path), path, name)
