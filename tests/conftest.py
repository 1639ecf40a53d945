"""Shared test helpers.

Tests that need SBCL or bubblewrap skip on a laptop without them, but FAIL when CI=true:
CI installs both, so a skip there would hide a missing feature.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AGENTS = Path(__file__).resolve().parent / "agents"
IN_CI = os.environ.get("CI", "").lower() == "true"


def _need(tool: str, why: str):
    if shutil.which(tool):
        return
    message = f"{tool} is not installed ({why})"
    if IN_CI:
        pytest.fail(message + " - CI must install it", pytrace=False)
    pytest.skip(message)


@pytest.fixture
def sbcl():
    _need("sbcl", "apt-get install sbcl")


@pytest.fixture
def bwrap():
    _need("bwrap", "apt-get install bubblewrap")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """One harness cache for the whole session, never the user's own."""
    monkeypatch.setenv("PDHARNESS_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def run_cli(*args, input=None, cwd=None, timeout=300):
    """The real console entry point in a subprocess: (exit status, stdout, stderr)."""
    command = [sys.executable, "-m", "harness", *map(str, args)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(command, capture_output=True, text=True, input=input, cwd=cwd,
                          timeout=timeout, env=env)
    return done.returncode, done.stdout, done.stderr
