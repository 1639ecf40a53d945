"""The behaviour pin: one fixed-seed tournament, played through the real console script, whose
JSON must equal the committed `tournament.json` in every isolation mode and for any --jobs.

The tournament mixes the three languages (bundled students in Python, Hy and Common Lisp, and
a built-in) with agents that fault in each way a game records (`tests/agents/golden/` and
`tests/agents/core/`):
- Liar.py: invalid answers (every call);
- Raiser.py: an exception on every other call;
- Misnamed.py: defines no function named after its file (status `load-error`, default
  answers throughout; in the harness's own words, where a syntax error would pin the
  wording of one Python version);
- LispCrasher.lisp: its process exits mid-game (a `crash`; status `crashed`);
- LispStaller.lisp: a call that never returns (a `timeout`, stopped from outside);
- PySleeper.py: a call that returns after the time limit (a `timeout`).
Every mode records these alike. No fault here may kill the monitor's own process, since
`none` runs Python and Hy agents inside it; the crash and the endless loop are Lisp agents,
which run in a process of their own in every mode (`none` included), so they are recorded the
same way everywhere. What differs by mode is only what the JSON does not hold: a fault's
message (PySleeper's timeout reads "answered after 3.00 s" inside the monitor, "no answer
within 2 s; process killed and replaced" in a process; `show` on a --db record has them).

`normalized` is the one place that says which parts of the JSON may vary between runs.
`python tests/golden/regenerate.py` rewrites the expected file, on purpose, after a change of
behaviour that is meant (say why in the commit).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
EXPECTED = Path(__file__).resolve().parent / "tournament.json"

AGENTS = [
    ROOT / "student_agents" / "KhosmoodLevinson.py",
    ROOT / "student_agents" / "GarciaHoffman.hy",
    ROOT / "student_agents" / "BrownChen.lisp",
    "titfortat",
    TESTS / "agents" / "core" / "Liar.py",
    TESTS / "agents" / "core" / "Raiser.py",
    TESTS / "agents" / "core" / "Misnamed.py",
    TESTS / "agents" / "golden" / "LispCrasher.lisp",
    TESTS / "agents" / "golden" / "LispStaller.lisp",
    TESTS / "agents" / "golden" / "PySleeper.py",
]
# short games, two rounds; a time limit of 2 s: far above what an honest call takes even on
# a loaded machine (a spurious timeout would change the result), and well below what
# PySleeper (3 s) and LispStaller (forever) take
OPTIONS = ["--seed", "7", "--length", "3", "5", "--max-rounds", "2", "--timeout", "2",
           "--format", "json"]
MODES = ("none", "process", "sandbox")
JOBS = (1, 2)


def console_script() -> str:
    """The installed `pdharness` beside this interpreter (the one users run)."""
    beside = Path(sys.executable).parent / "pdharness"
    found = str(beside) if beside.exists() else shutil.which("pdharness")
    if found is None:
        raise RuntimeError("the pdharness console script is not installed (pip install -e .)")
    return found


def play(mode: str, jobs: int, cwd: Path) -> dict:
    """The tournament's JSON as the console script prints it. `cwd` is an empty folder: no
    course file (pdharness.toml) there changes the options."""
    command = [console_script(), "tournament", *map(str, AGENTS), *OPTIONS,
               "--isolation", mode, "--jobs", str(jobs)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=600,
                          env=dict(os.environ, NO_COLOR="1"))
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    return json.loads(done.stdout)


def normalized(result: dict) -> dict:
    """The JSON without what legitimately differs between runs of the same tournament:
    - params.isolation: the mode is what the comparison varies (--jobs is not in the JSON);
    - paths: the repository's folder, wherever it is checked out, is cut from every string
      (agents' sources, and load errors that name the file);
    - runtimes: the version of each language's runtime is the machine's (which languages
      have one recorded stays).
    The tournament JSON holds no times or host fingerprints today: one added to it must be
    cut here, and only here."""
    prefix = str(ROOT) + os.sep

    def strip(value):
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items()}
        if isinstance(value, list):
            return [strip(item) for item in value]
        if isinstance(value, str):
            return value.replace(prefix, "")
        return value

    shown = strip(result)
    shown["params"].pop("isolation", None)
    if isinstance(shown.get("runtimes"), dict):
        shown["runtimes"] = {name: "VERSION" for name in shown["runtimes"]}
    return shown


def fault_changes(shown: dict) -> str:
    """What a failing run faulted differently from the expected one, per agent: an honest
    agent's timeout says the machine was too loaded for the time limit, not that the code
    changed."""
    expected = {s["agent"]: s["faults"] for s in json.loads(EXPECTED.read_text())["standings"]}
    changed = {s["agent"]: s["faults"] for s in shown["standings"]
               if s["faults"] != expected.get(s["agent"])}
    return f"faults that differ: {changed}" if changed else "the same faults"


def dumps(shown: dict) -> str:
    """The expected file's text: one key or value a line, so a diff shows what changed."""
    return json.dumps(shown, indent=1) + "\n"
