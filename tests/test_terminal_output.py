"""No command's output to a terminal carries a control character that came from a file or
an agent: fuzzed names, paths, messages and printed output, each command
run on a real pseudo-terminal (so it believes it talks to one), NO_COLOR set so that every
escape sequence on it would be foreign."""
from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import tty

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT

pytestmark = pytest.mark.slow  # every example starts the command line several times

# what a terminal obeys, or what reorders what it shows: C0 but newline and tab, DEL, C1,
# bidi controls, the Unicode line and paragraph separators
FORBIDDEN = {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F,
                              *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028,
                              0x2029)} - {"\n", "\t"}
EVIL = st.text(alphabet=st.sampled_from(sorted(FORBIDDEN) + list("ab]0;")), min_size=1,
               max_size=6)


def on_a_terminal(args, cwd) -> str:
    """Everything the command wrote to stdout and stderr, both a pseudo-terminal in raw mode
    (no newline translation: what is read is what was written)."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="100")
    env.pop("CLICOLOR_FORCE", None)
    process = subprocess.Popen([sys.executable, "-m", "harness", *map(str, args)], cwd=cwd,
                               stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 300)
            assert ready, "the command wrote nothing for 300 s"
            try:
                chunk = os.read(master, 65536)
            except OSError:   # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
        process.wait(timeout=300)
    return b"".join(chunks).decode("utf-8", "replace")


def shown_safely(output: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in output if c in FORBIDDEN})
    assert not found, f"{found} reached the terminal:\n{output[-3000:]!r}"


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(evil=EVIL)
def test_no_control_character_from_a_file_or_an_agent_reaches_the_terminal(tmp_path_factory,
                                                                             evil):
    from harness.agents.qtable import Model, save_model

    work = tmp_path_factory.mktemp("terminal")
    folder = work / f"up{evil}loads"            # a folder name from an archive
    folder.mkdir()
    agent = folder / "KhosmoodLevinson.py"      # prints, warns and fails with it
    agent.write_text(f"import sys\n\n\ndef KhosmoodLevinson(hist, score):\n"
                     f"    print({evil!r})\n    sys.stderr.write({evil!r})\n"
                     f"    if len(hist) > 3:\n        raise ValueError({evil!r})\n"
                     f"    return ['C', 'C', {evil!r}]\n")
    misnamed = folder / f"Chen{evil}Diaz.py"    # a file name from an archive
    misnamed.write_text("def ChenDiaz(hist, score):\n    return ['C', 'C', 'C']\n")
    model = work / f"model{evil}.json"          # a model path quoted by a note
    save_model(Model.untrained(1), model)
    experiment = work / "experiment.json"
    experiment.write_text(json.dumps({
        "types": [{"id": "q", "agent": f"qtable:{model}", "count": 2},
                  {"id": "t", "agent": "titfortat", "count": 2}],
        "parameters": {"length": [2, 3]}}))
    roster = work / "roster.csv"                # names from an LMS export
    roster.write_text(f"Name,Group\nAda {evil},Khosmood{evil}\n", encoding="utf-8")
    record = work / "run.sqlite"
    for args in (["validate", folder],
                 ["validate", agent, "--roster", roster],
                 ["play", agent, "titfortat", "--turns", "6", "--isolation", "process"],
                 ["tournament", folder, "titfortat", "--isolation", "process", "--length",
                  "5", "5", "--seed", "1", "--quiet", "--db", record],
                 ["show", record], ["show", record, "--agent", "KhosmoodLevinson"],
                 ["show", record, "--game", "1"],
                 ["experiment", experiment, "--isolation", "none", "--seed", "1",
                  "--quiet"],
                 ["tournament", f"qtable:{model}", "titfortat", "--isolation", "none",
                  "--length", "2", "2", "--quiet"],
                 ["tournament", work / f"no{evil}such.py"]):
        shown_safely(on_a_terminal(args, work))
