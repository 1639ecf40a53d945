"""Every file the monitor reads is read one way: population, experiment,
course, model, roster and record files given as a FIFO or as /dev/stdin never hang a run;
each is one line on stderr, exit status 2 (harness/agents/agent_files.py, `read_input_file`)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # every test starts the command line

# how each kind of input file is handed to a command; {} is the file
USES = {
    "population": ["tournament", "--population", "{}", "--isolation", "none"],
    "model": ["tournament", "qtable:{}", "titfortat", "--isolation", "none"],
    "model in a population": ["tournament", "--population", "@population", "--isolation",
                              "none"],
    "experiment": ["experiment", "{}", "--isolation", "none"],
    "training": ["train", "{}", "--out", "@out", "--isolation", "none"],
    "course": ["tournament", "--config", "{}", "titfortat", "defect", "--isolation", "none"],
    "roster": ["validate", "--roster", "{}", str(ROOT / "student_agents" / "AdamsBrown.py")],
    "LMS roster": ["tournament", "titfortat", "defect", "--isolation", "none", "--roster",
                   "{}", "--grades", "@out"],
    "record": ["show", "{}"],
    "record to resume": ["resume", "{}"],
}


def run_with_stdin_open(args, cwd):
    """The command line with a stdin that never ends: a read of it would wait for ever."""
    process = subprocess.Popen([sys.executable, "-m", "harness", *args], cwd=cwd,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        out, err = process.communicate(timeout=120)  # a guard against hanging, not a timing
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"pdharness {' '.join(args)} waited on its input")
    finally:
        if process.stdin:
            process.stdin.close()
    return process.returncode, out, err


@pytest.mark.parametrize("kind", list(USES))
@pytest.mark.parametrize("given", ["fifo", "stdin", "link"])
def test_no_input_file_hangs_or_follows_a_link(tmp_path, kind, given):
    fifo = tmp_path / "input.json"
    if given == "fifo":
        os.mkfifo(fifo)
        target = str(fifo)
    elif given == "stdin":
        target = "/dev/stdin"
    else:   # a link, even to a readable file, is not followed
        (tmp_path / "real.json").write_text("{}")
        os.symlink(tmp_path / "real.json", fifo)
        target = str(fifo)
    population = tmp_path / "population.json"
    population.write_text(json.dumps({"types": [{"id": "q", "agent": f"qtable:{target}",
                                                 "count": 2}]}))
    args = [word.replace("{}", target).replace("@population", str(population))
            .replace("@out", str(tmp_path / "out.csv")) for word in USES[kind]]
    status, out, err = run_with_stdin_open(args, tmp_path)
    assert status == 2, (status, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "input.json" in err or "/dev/stdin" in err, err
