"""Nothing in the folder the monitor runs from is imported by the Python processes it
starts: a file named like a standard module there (`tempfile.py`, `hashlib.py`, ...) would
run as the instructor. Real files, planted under every standard module's name, in the
working folder of a real tournament, with a cold cache so that the helper that compiles
Hy's bytecode runs too, under `process` and `sandbox` isolation."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

PLANTED = sorted(set(sys.stdlib_module_names) | {
    "hy", "hyrule", "funcparserlib", "sitecustomize", "usercustomize", "harness",
    "lisp_bridge"} - {"__future__"})


def plant(folder, marks):
    """A module under each name that leaves a mark when imported."""
    for name in PLANTED:
        (folder / f"{name}.py").write_text(
            f"open({str(marks / name)!r}, 'w').close()\n")


def run_monitor(cwd, *arguments, cache):
    """The monitor as the `pdharness` command starts it (its own folder on sys.path, not
    the working folder, which `python -m` would add)."""
    command = [sys.executable, "-c", "import sys; del sys.path[0]; import runpy; "
               "runpy.run_module('harness', run_name='__main__')", *map(str, arguments)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), PDHARNESS_CACHE=str(cache))
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def test_modules_planted_in_the_working_folder_are_never_imported(tmp_path, bwrap):
    work, marks = tmp_path / "work", tmp_path / "marks"
    work.mkdir()
    marks.mkdir()
    for name in ("KhosmoodLevinson.py", "GarciaHoffman.hy"):
        (work / name).write_bytes((ROOT / "student_agents" / name).read_bytes())
    plant(work, marks)
    cache = tmp_path / "cache"   # cold for the first run: the Hy cache helper runs
    for mode in ("process", "sandbox"):
        done = run_monitor(work, "tournament", "KhosmoodLevinson.py", "GarciaHoffman.hy",
                           "titfortat", "--isolation", mode, "--seed", "3", "--length", "3",
                           "3", "--max-rounds", "1", "--format", "json", cache=cache)
        assert done.returncode == 0, done.stderr
        assert sorted(os.listdir(marks)) == [], mode
        result = json.loads(done.stdout)
        assert {agent["status"] for agent in result["agents"]} == {"ok"}, mode
        assert all(sum(s["faults"].values()) == 0 for s in result["standings"]), mode
        assert list(cache.rglob("filled-*")), "the Hy cache helper did not fill the cache"
