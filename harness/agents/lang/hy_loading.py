"""Loading a Hy agent: compile once, execute fresh for every game.

Hy is slow to load in three places, each handled here:
- Compiling the agent's file (~20 ms, more with big macros): the code object is kept in
  `<cache>/agents/hy`, keyed by the file's content, Hy's and Python's versions and hyrule's
  installation; any change to the file compiles it again. Only the monitor writes there
  (when it runs agents itself, `--isolation none`, which is for trusted code): a host
  process belongs to its agent and never writes the harness cache, and the sandbox hides
  that folder, which would show an agent the other agents' code.
- Compiling Hy's own modules and hyrule (~2 s): PYTHONDONTWRITEBYTECODE is set on the
  project's machines, so their bytecode goes to `<cache>/pycache` through
  `sys.pycache_prefix`, set only while Hy loads (it redirects every import). A helper
  process of the monitor fills it before the first Hy host starts, since hosts only read.
- hyrule's import (~100 ms): `hy.macros.require` asks `inspect.stack()` for its caller's
  frame, and that reads the source lines of every frame on the stack, about thirty times
  over. hy.macros gets an `inspect` whose `stack()` skips the source lines.
"""
from __future__ import annotations

import _thread
import functools
import hashlib
import importlib.util
import marshal
import os
import subprocess
import sys
import tempfile
import types
from contextlib import contextmanager
from pathlib import Path

from harness.core.errors import LoadError

from ..pyload import code_factory, read_source

# imports inside functions here are deferred (the host's image stays lean)

_writes_cache = True   # False in a host process (Hy.preload_in_host): read the cache only


def serve_read_only() -> None:
    """From now on this process only reads the harness cache (it hosts an agent)."""
    global _writes_cache
    _writes_cache = False


# -- the harness cache ---------------------------------------------------------------------
def _cache_root() -> Path | None:
    from ..cache import cache_dir

    try:
        return cache_dir()
    except OSError:  # no writable home: load without a cache
        return None


def _pycache_prefix() -> str | None:
    root = _cache_root()
    return str(root / "pycache") if root else None


@contextmanager
def library_bytecode(prefix: str | None):
    """Bytecode of modules imported meanwhile (Hy's, hyrule's) is read from, and in the
    monitor written to, the harness cache. Only for the span of loading Hy: the prefix
    hides every `__pycache__` folder, so an agent's `(import numpy)` outside this span
    still finds numpy's bytecode where pip put it."""
    saved = sys.pycache_prefix, sys.dont_write_bytecode
    if prefix:
        sys.pycache_prefix, sys.dont_write_bytecode = prefix, not _writes_cache
    try:
        yield
    finally:
        sys.pycache_prefix, sys.dont_write_bytecode = saved


def _installed(module: str) -> str:
    """Where a library is installed and when it last changed ("" if it is not)."""
    try:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec else None
        found = os.stat(origin) if origin else None
    except (ImportError, ValueError, OSError):
        found = None
    return f"{origin}:{found.st_mtime_ns}:{found.st_size}" if found else ""


def cache_file(source: str) -> Path | None:
    """Where the code compiled from `source` is kept; it depends on the source, on the
    compiler, and on hyrule, whose macros expand into the code."""
    import hy

    from ..cache import compiled_agents_dir

    try:
        folder = compiled_agents_dir() / "hy"
    except OSError:
        return None
    key = hashlib.sha256("\0".join(
        (source, hy.__version__, sys.version, _installed("hyrule"))).encode()).hexdigest()
    return folder / f"{key[:32]}.code"


def _cached(target: Path | None):
    if target is None:
        return None
    try:
        code = marshal.loads(target.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None  # absent, or a torn write: compile again
    return code if isinstance(code, types.CodeType) else None


def _store(target: Path | None, code) -> None:
    if target is None or not _writes_cache:
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(dir=target.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(marshal.dumps(code))
        os.chmod(scratch, 0o644)  # process hosts may run under a user id of their own
        os.replace(scratch, target)
    except OSError:
        pass  # a read-only cache: compile again next time


# -- Hy itself --------------------------------------------------------------------------
def _import_hy():
    with compiling:  # importing Hy compiles its own .hy modules (see `compiling`)
        import hy
        import hy.macros

        _spare_require_the_source_lines(hy.macros)
    return hy


def hist_pairs():
    """What a Hy agent's hist holds for a played pair (lisp_bridge.hy_data.hist_pair),
    imported with Hy one thread at a time."""
    _import_hy()
    with compiling:
        from lisp_bridge.hy_data import hist_pair
    return hist_pair


def _spare_require_the_source_lines(macros) -> None:
    """Give hy.macros an `inspect` whose stack() lists frames without their source lines:
    it only ever reads `stack()[1][0]`, the caller's frame (see the module docstring)."""
    import inspect

    if getattr(macros.inspect, "pdharness_quick_stack", False):
        return

    def stack(context=1):
        frames: list[inspect.FrameInfo] = []
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            frames.append(inspect.FrameInfo(frame, code.co_filename, frame.f_lineno,
                                            code.co_name, None, None))
            frame = frame.f_back
        return frames

    quick = types.ModuleType("inspect", inspect.__doc__)
    quick.__dict__.update(vars(inspect), stack=stack, pdharness_quick_stack=True)
    macros.inspect = quick


@functools.cache
def _reader_class():
    from hy.reader import HyReader

    class OpenerTrackingReader(HyReader):
        """Hy's reader, remembering where each form or string still open began: a file
        that ends too early is then reported at its unclosed bracket, not its last line."""

        def __init__(self):
            super().__init__()
            self.open_at: list[tuple[int, str]] = []
            self.reader_table['"'] = type(self).prefixed_string

        def parse_forms_until(self, closer):
            if not closer:  # the whole file
                yield from super().parse_forms_until(closer)
                return
            self.open_at.append((self.pos[0], {")": "(", "]": "[", "}": "{"}.get(closer, "")))
            yield from super().parse_forms_until(closer)
            self.open_at.pop()

        def prefixed_string(self, key, prefix=""):
            self.open_at.append((self.pos[0], '"'))
            model = super().prefixed_string(key, prefix)
            self.open_at.pop()
            return model

    return OpenerTrackingReader


def hy_reader():
    """A fresh Hy reader for `hy.read_many(..., reader=)` that knows, when the file ends
    too early, which bracket or string was left open (see unclosed_form)."""
    _import_hy()
    return _reader_class()()


def static_reader(source: str = ""):
    """hy_reader() for a file read without being compiled (validation). No code of the
    file's, or of a library it names, runs: the prelude's #' is known (our own), and every
    other `#tag` (hyrule's #%, a reader macro the file defines) reads the form after it as
    data, `(pdharness-unread-reader-macro "tag" form)`, where a compile would have run the
    macro. SOURCE is not needed (kept for callers that pass it)."""
    from lisp_bridge import cl

    reader = hy_reader()
    reader.reader_macros = _OpaqueReaderMacros({**reader.reader_macros,
                                                **cl._hy_reader_macros})
    return reader


class _OpaqueReaderMacros(dict):
    """Hy's table of reader macros, in which every tag is defined: an unknown one reads as
    data (see static_reader)."""

    def __contains__(self, tag) -> bool:
        return True

    def __missing__(self, tag):
        return _unread_reader_macro


def _unread_reader_macro(reader, tag):
    from hy.models import Expression, String, Symbol

    return Expression([Symbol("pdharness-unread-reader-macro"), String(tag),
                       reader.parse_one_form()])


def unclosed_form(reader, error) -> tuple[int, str] | None:
    """(line, message) for a read error caused by a form or string `reader` left open."""
    from hy.reader.exceptions import PrematureEndOfInput

    if not isinstance(error, PrematureEndOfInput) or not reader.open_at:
        return None
    line, opener = reader.open_at[-1]
    what = "string" if opener == '"' else f'"{opener}"'
    return line, f"this {what} is never closed (the file ends first, at line {error.lineno})"


# Hy keeps the reader in use in one global (HyReader._current_reader), where `(require M
# :readers ...)` installs reader macros while compiling, and importing Hy itself (its .hy
# modules are compiled on a cold cache) sets that global too: agents loaded at once on
# several threads (the tournament opens agents on a thread pool) ended in "reader macro '#''
# is not defined". Importing Hy and compiling and loading a Hy agent happen one at a time
# (they need the GIL anyway). `_thread`'s lock: see harness/agents/lang/language.py.
compiling = _thread.RLock()


def compile_hy(path: Path, source: str):
    """The code object of an agent file, or a LoadError naming the file and line."""
    _import_hy()
    from hy.compiler import hy_compile
    from hy.errors import HyError
    from hy.reader import read_many

    module = types.ModuleType(f"pdharness_agent_{path.stem}")
    module.__file__ = str(path)
    reader = hy_reader()
    try:
        with compiling:  # reentrant: load_factory holds it too
            tree = read_many(source, filename=str(path), skip_shebang=True, reader=reader)
            return compile(hy_compile(tree, module), str(path), "exec", dont_inherit=True)
    except HyError as error:
        unclosed = unclosed_form(reader, error)
        if unclosed:
            raise LoadError(f"{path}:{unclosed[0]}: Hy: {unclosed[1]}") from error
        raise LoadError(_hy_error_text(path, error)) from error
    except SyntaxError as error:
        raise LoadError(f"{path}:{error.lineno}: syntax error: {error.msg}") from error
    except Exception as error:  # a macro of the agent's that fails while compiling
        raise LoadError(f"{path}: does not compile: {type(error).__name__}: {error}") from error


def _hy_error_text(path: Path, error) -> str:
    line = getattr(error, "lineno", None)
    message = getattr(error, "msg", None) or str(error).splitlines()[0]
    return (f"{path}{':' + str(line) if line else ''}: "
            f"Hy {type(error).__name__}: {' '.join(str(message).split())}")


def load_code(path: Path):
    source = read_source(path)
    target = cache_file(source)
    code = _cached(target)
    if code is None:
        code = compile_hy(path, source)
        _store(target, code)
    if "hyrule" in source:  # import it now, while its bytecode is found: the agent will
        try:
            import hyrule  # noqa: F401
        except ImportError:
            pass  # the agent's own import says so, as a load error
    return code


def load_factory(path: Path, name: str):
    """factory(rng, moves_per_turn) -> the agent's function, from fresh globals each call."""
    with compiling, library_bytecode(_pycache_prefix()):
        _import_hy()  # Hy's runtime: the compiled code imports from it
        code = load_code(path)
        return code_factory(code, path, name)


def import_runtime(path: Path | str) -> None:
    """What the compiled agent imports from Hy (and hyrule or our Common Lisp prelude, when
    the file names them), imported in a host's zygote before any game, so that no game's
    child imports them again: no agent code runs."""
    source = read_source(path)
    with library_bytecode(_pycache_prefix()):
        _import_hy()
        for library in ("hyrule", "lisp_bridge.cl"):
            if library in source:
                try:
                    importlib.import_module(library)
                except ImportError:
                    pass  # the agent's own import says so, as a load error


def load_checked_code(path: Path, name: str):
    """The code object of an agent file that compiles and loads (runs the agent's macros
    and module: a host does this in a throwaway child, never in its zygote)."""
    with library_bytecode(_pycache_prefix()):
        code = load_code(path)
    code_factory(code, path, name)
    return code


# -- before hosts start ------------------------------------------------------------------
_filled: set[str] = set()


def warm_library_cache() -> None:
    """Make sure Hy's and hyrule's bytecode is in the cache before Hy hosts start (they
    only read it, and a sandboxed one cannot write it). Compiled in a helper process: the
    monitor may have imported Hy already, without the cache, and needs none of it."""
    prefix = _pycache_prefix()
    if prefix is None or prefix in _filled:
        return
    _filled.add(prefix)
    if _stamp(prefix).exists():
        return
    from .python_process import python_code_command

    # isolated, from /: nothing in the folder the monitor runs from, or on a PYTHONPATH
    # pointing there, is imported (see harness.agents.lang.python_process); the rest of the
    # monitor's environment says where the cache is
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    try:
        subprocess.run(python_code_command("import harness.agents.lang.hy_loading as loader; "
                                           "loader.fill_library_cache()"),
                       env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=300,
                       check=False, cwd="/")
    except (OSError, subprocess.SubprocessError):
        pass  # hosts then compile Hy in memory: slower, still correct


# What a filled cache holds; a new layout fills it again. 2: every module this process has
# imported, not only those imported while filling (see fill_library_cache).
_CACHE_LAYOUT = "2"


def _stamp(prefix: str) -> Path:
    """Marks a filled cache, for this Python and these installations of hy and hyrule."""
    key = hashlib.sha256("\0".join(
        (sys.version, _installed("hy"), _installed("hyrule"), _CACHE_LAYOUT)).encode()
    ).hexdigest()
    return Path(prefix) / f"filled-{key[:16]}"


def fill_library_cache() -> None:
    """Run in the helper process: import Hy and hyrule with bytecode written to the cache."""
    prefix = _pycache_prefix()
    if prefix is None:
        return
    with library_bytecode(prefix):
        _import_hy()
        if importlib.util.find_spec("hyrule") is not None:
            import hyrule  # noqa: F401
        _compile_the_rest()
    _stamp(prefix).touch()


def _compile_the_rest() -> None:
    """The bytecode, in the cache, of every module of this process imported before Hy (the
    harness's own, the standard library's). A host imports fewer of them before it loads
    Hy (its zygote imports no more than a game uses), and whichever Hy then imports, it
    looks for in the cache: one missing there is compiled from source in every host
    (typing, traceback: +40 ms and +2.8 MB a Hy host)."""
    import py_compile

    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not isinstance(origin, str) or not origin.endswith(".py"):
            continue
        try:
            target = importlib.util.cache_from_source(origin)   # under the prefix, now
            if not os.path.exists(target):
                py_compile.compile(origin, cfile=target, doraise=True)
        except (OSError, ValueError, py_compile.PyCompileError):
            continue   # that module compiles in memory in a host: slower, still correct
