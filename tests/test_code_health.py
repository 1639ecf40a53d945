"""The project's own checks, run as CI runs them: ruff (pyflakes, bugbear, import order),
mypy and the import layering contract (lint-imports), each with its configuration from
pyproject.toml and setup.cfg, as real subprocesses of this interpreter's environment.

They need the test extra (`pip install '.[test]'`): they skip without it, except in CI.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT

pytestmark = pytest.mark.slow  # seconds each (mypy without its cache takes half a minute)


def _tool(module: str, script: str | None) -> list[str]:
    """The tool of this interpreter's environment: `python -m module`, or the script
    installed next to the interpreter (import-linter has no `-m`)."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        message = f"{module} is not installed (pip install '.[test]')"
        if IN_CI:
            pytest.fail(message + " - CI must install it", pytrace=False)
        pytest.skip(message)
    if script is None:
        return [sys.executable, "-m", module]
    beside = Path(sys.executable).parent / script
    return [str(beside) if beside.exists() else shutil.which(script) or script]


def _passes(command: list[str]) -> None:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}"


def test_ruff_finds_nothing():
    _passes(_tool("ruff", None) + ["check", "--no-cache"])


def test_mypy_finds_nothing():
    _passes(_tool("mypy", None))


def test_no_module_imports_a_layer_above_its_own():
    _passes(_tool("importlinter", "lint-imports") + ["--no-cache"])
