"""Starting the SBCL host for a Common Lisp agent (lisp_bridge/sbcl_host.lisp).

The server is compiled once into the harness cache, keyed by SBCL's version and the
server's source, so a host is ready in milliseconds. It is compiled here, in the monitor,
from our own source only; the agent's file is compiled inside the host (and so inside the
sandbox), never out here: compiling Lisp runs code (macros, eval-when). Where the cache
is, is the caller's to say (harness/agents/lang/lisp.py); what goes wrong is an SbclError.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# the host's parts, in the order they are compiled and loaded (each uses what those before
# it define: the package, macros, constants); their fasls, concatenated, are the host's one
SOURCES = tuple(_HERE / name for name in ("sbcl_host.lisp", "sbcl_host_loading.lisp",
                                          "sbcl_host_world.lisp", "sbcl_host_serving.lisp"))
MISSING = "SBCL is not installed: apt-get install sbcl"
CONTROL_STACK = "8MB"
MIB = 1024 * 1024
# What SBCL maps besides its heap (core, other spaces, stacks, GC tables), measured on
# SBCL 2.2.9: about 210 MiB plus 2.5% of the heap. Leave room for the host's own mallocs.
OVERHEAD = 256 * MIB
SMALLEST_HEAP = 64 * MIB
_compiling = threading.Lock()


class SbclError(Exception):
    """SBCL is missing, or our server does not compile; the message is one line."""


def program() -> str | None:
    return shutil.which("sbcl")


def available() -> bool:
    return program() is not None


def missing_message() -> str:
    """One line for a Common Lisp agent on a machine without SBCL, naming the fix."""
    return MISSING


@lru_cache(maxsize=1)
def version() -> str:
    done = subprocess.run([program() or "sbcl", "--version"], capture_output=True, text=True,
                          timeout=30)
    return done.stdout.strip() or "unknown"


def heap_mib(memory: int | None) -> int | None:
    """The --dynamic-space-size (MiB) that lets SBCL start under `memory` bytes of address
    space, or None when there is no limit. SBCL reserves its whole heap up front, so under
    an address-space limit it must be told a smaller one; below about 320 MiB it cannot
    start at all."""
    if not memory:
        return None
    heap = int((memory - OVERHEAD) * 0.9)
    return max(heap, SMALLEST_HEAP) // MIB


def base_command(memory: int | None = None) -> list[str]:
    """SBCL's argv before its toplevel options, its heap fit under MEMORY bytes of address
    space (runtime options come first on SBCL's command line)."""
    heap = heap_mib(memory)
    fitted = ["--dynamic-space-size", f"{heap}MB"] if heap is not None else []
    return [program() or "sbcl", *fitted, "--noinform", "--disable-ldb",
            "--control-stack-size", CONTROL_STACK, "--end-runtime-options",
            "--no-sysinit", "--no-userinit", "--disable-debugger"]


def server_fasl(cache: Path) -> Path:
    """The compiled server, compiled on first use into CACHE/sbcl (atomically: hosts start
    in parallel)."""
    digest = hashlib.sha256(version().encode())
    for source in SOURCES:
        digest.update(b"\0" + source.read_bytes())
    key = digest.hexdigest()[:16]
    target = cache / "sbcl" / f"host-{key}.fasl"
    with _compiling:
        if not target.exists():
            _compile_server(target)
    return target


def _compile_server(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(suffix=".fasl", dir=target.parent)
    os.close(handle)
    parts = [f"{scratch}.{number}" for number in range(len(SOURCES))]
    # each part compiled, then loaded so that the next one compiles against it; a warning
    # in our own server is a bug to see now, not a host that half works
    pairs = " ".join(f'("{_lisp_string(source)}" . "{_lisp_string(part)}")'
                     for source, part in zip(SOURCES, parts, strict=True))
    form = (f"(let ((ok t)) (with-compilation-unit () (dolist (pair '({pairs}))"
            " (multiple-value-bind (fasl warnings failed)"
            " (compile-file (car pair) :output-file (cdr pair)) (declare (ignore warnings))"
            " (if (and fasl (not failed)) (load fasl) (setf ok nil)))))"
            " (sb-ext:exit :code (if ok 0 1)))")
    failed: bool | Exception
    try:
        done = subprocess.run(base_command() + ["--non-interactive", "--eval", form],
                              capture_output=True, text=True, timeout=300)
        failed = done.returncode != 0 or not all(
            os.path.exists(part) and os.path.getsize(part) for part in parts)
        if not failed:   # SBCL loads concatenated fasls as one
            with open(scratch, "wb") as whole:
                for part in parts:
                    with open(part, "rb") as compiled:
                        shutil.copyfileobj(compiled, whole)
    except (OSError, subprocess.SubprocessError) as error:
        done, failed = None, error
    finally:
        for part in parts:
            if os.path.exists(part):
                os.unlink(part)
    if failed:
        if os.path.exists(scratch):
            os.unlink(scratch)
        said = (done.stdout + done.stderr) if done else str(failed)
        raise SbclError("cannot compile the SBCL host lisp_bridge/sbcl_host*.lisp: "
                        + " ".join(said[-400:].split()))
    os.chmod(scratch, 0o644)  # a sandboxed host runs under a user id of its own
    os.replace(scratch, target)


def _lisp_string(path) -> str:
    return str(path).replace("\\", "\\\\").replace('"', '\\"')


def host_command(path: Path, name: str, cache: Path, memory: int | None) -> list[str]:
    """The argv of an SBCL host serving the agent NAME defined in PATH (the server's fasl
    kept in CACHE), able to start under MEMORY bytes of address space."""
    if not available():
        raise SbclError(missing_message())
    return base_command(memory) + ["--load", str(server_fasl(cache)),
                             "--eval", "(pdharness-host:main)",
                             "--end-toplevel-options", str(path), name]
