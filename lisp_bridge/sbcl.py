"""Starting the SBCL host for a Common Lisp agent (lisp_bridge/sbcl_host.lisp).

The server is compiled once into the harness cache, keyed by SBCL's version and the
server's source, so a host is ready in milliseconds. It is compiled here, in the monitor,
from our own source only; the agent's file is compiled inside the host (and so inside the
sandbox), never out here: compiling Lisp runs code (macros, eval-when).
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

from harness.errors import LoadError

SERVER = Path(__file__).resolve().parent / "sbcl_host.lisp"
MISSING = "SBCL is not installed: apt-get install sbcl"
CONTROL_STACK = "8MB"
_compiling = threading.Lock()


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


def base_command() -> list[str]:
    return [program() or "sbcl", "--noinform", "--disable-ldb",
            "--control-stack-size", CONTROL_STACK, "--end-runtime-options",
            "--no-sysinit", "--no-userinit", "--disable-debugger"]


def server_fasl() -> Path:
    """The compiled server, compiled on first use (atomically: hosts start in parallel)."""
    from harness.cache import cache_dir

    source = SERVER.read_bytes()
    key = hashlib.sha256(version().encode() + b"\0" + source).hexdigest()[:16]
    target = cache_dir() / "sbcl" / f"host-{key}.fasl"
    with _compiling:
        if not target.exists():
            _compile_server(target)
    return target


def _compile_server(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(suffix=".fasl", dir=target.parent)
    os.close(handle)
    # a warning in our own server is a bug to see now, not a host that half works
    form = (f'(multiple-value-bind (fasl warnings failed) (compile-file "{_lisp_string(SERVER)}"'
            f' :output-file "{_lisp_string(scratch)}") (declare (ignore warnings))'
            f' (sb-ext:exit :code (if (and fasl (not failed)) 0 1)))')
    failed: bool | Exception
    try:
        done = subprocess.run(base_command() + ["--non-interactive", "--eval", form],
                              capture_output=True, text=True, timeout=300)
        failed = done.returncode != 0 or not os.path.exists(scratch) or not os.path.getsize(
            scratch)
    except (OSError, subprocess.SubprocessError) as error:
        done, failed = None, error
    if failed:
        if os.path.exists(scratch):
            os.unlink(scratch)
        said = (done.stdout + done.stderr) if done else str(failed)
        raise LoadError("cannot compile the SBCL host lisp_bridge/sbcl_host.lisp: "
                        + " ".join(said[-400:].split()))
    os.chmod(scratch, 0o644)  # a sandboxed host runs under a user id of its own
    os.replace(scratch, target)


def _lisp_string(path) -> str:
    return str(path).replace("\\", "\\\\").replace('"', '\\"')


def host_command(path: Path, name: str) -> list[str]:
    """The argv of an SBCL host serving the agent NAME defined in PATH."""
    if not available():
        raise LoadError(missing_message())
    return base_command() + ["--load", str(server_fasl()),
                             "--eval", "(pdharness-host:main)",
                             "--end-toplevel-options", str(path), name]
