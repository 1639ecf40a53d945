"""`play` streams: each turn's row, and what the agents printed during it, reaches the
terminal as soon as the turn is played. Checked on a real pseudo-terminal with an agent
that will not play turn 3 until the test has seen turn 2 on the screen (no clock involved:
a trace printed only at the end would never show turn 2 while the agent waits)."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

from conftest import ROOT

GATED = '''import os, time
def Gated(hist, score):
    turn = len(hist) // 3 + 1
    print("turn", turn, "\\x1b[2Jthinking")
    if turn == 3:
        while not os.path.exists({gate!r}):
            time.sleep(0.02)
    return ["C", "C", "D"]
'''


def read_until(controller, seen: bytearray, wanted: bytes, limit: float = 120) -> bool:
    """Read the terminal until `wanted` shows (True) or it stays silent `limit` s (False)."""
    while wanted not in seen:
        ready, _, _ = select.select([controller], [], [], limit)
        if not ready:
            return False
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            return wanted in seen
        if not chunk:
            return wanted in seen
        seen.extend(chunk)
    return True


def test_each_turn_and_the_agents_output_show_while_the_game_goes_on(tmp_path, shared_folder):
    gate = shared_folder / "go"   # where the agent's process sees it (not its own /tmp)
    agent = tmp_path / "Gated.py"
    agent.write_text(GATED.format(gate=str(gate)))
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "play", str(agent), "titfortat", "--turns", "4",
         "--seed", "1", "--isolation", "process", "--timeout", "300"],
        stdout=terminal, stderr=terminal, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    os.close(terminal)
    seen = bytearray()
    try:
        assert read_until(controller, seen, b"| Gated: turn 2"), seen.decode()
        shown = seen.decode()
        assert "\n   1  " in shown and "\n   2  " in shown and "Final score" not in shown
        assert process.poll() is None        # turn 3 has not been played: it is waiting
        gate.touch()
        assert read_until(controller, seen, b"Each cell"), seen.decode()
        assert process.wait(timeout=120) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    shown = seen.decode()
    rows = [row for row in shown.splitlines() if row[:4].strip().isdigit()]
    assert len(rows) == 4
    assert "| Gated: turn 4 \\x1b[2Jthinking" in shown     # shown, never obeyed
    assert "\x1b[2J" not in shown


def test_no_agent_output_hides_it():
    from conftest import run_cli

    status, out, err = run_cli("play", "titfortat", "defect", "--turns", "2", "--seed", "1",
                               "--no-agent-output")
    assert status == 0, err
    assert "Final score" in out and "|" not in out


def test_two_agents_of_one_name_are_told_apart_and_both_their_prints_shown(tmp_path):
    """A team's Python and Hy versions played against each other: each side is labelled
    by its file, and what each printed is shown (not one side's, keyed by the shared name)."""
    from conftest import run_cli

    (tmp_path / "AbeHo.py").write_text(
        'def AbeHo(hist, score):\n    print("py at", len(hist))\n    return ["C", "C", "D"]\n')
    (tmp_path / "AbeHo.hy").write_text(
        '(defn AbeHo [hist score]\n  (print "hy at" (len hist))\n  [\'C \'D \'D])\n')
    status, out, err = run_cli("play", "AbeHo.py", "AbeHo.hy", "--turns", "2", "--seed", "1",
                               "--isolation", "process", "--timeout", "30", cwd=tmp_path)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("AbeHo.py vs AbeHo.hy  ")
    assert lines[1].split()[1:3] == ["AbeHo.py", "AbeHo.hy"]
    printed = [text.strip() for text in lines if text.startswith("      | ")]
    assert printed == ["| AbeHo.py: py at 0", "| AbeHo.hy: hy at 0",
                       "| AbeHo.py: py at 3", "| AbeHo.hy: hy at 3"]
    assert lines[-2].startswith("Final score: AbeHo.py ")


def test_a_one_turn_game_is_one_turn():
    from conftest import run_cli

    status, out, err = run_cli("play", "titfortat", "defect", "--turns", "1", "--seed", "1")
    assert status == 0, err
    assert "  1 turn  flip " in out.splitlines()[0]


def test_in_the_monitor_an_agents_prints_are_labelled_and_kept_off_json(tmp_path):
    """--isolation none: what the agent prints shows under its turn, as in the process
    modes, and a --format json result on stdout stays JSON."""
    import json

    from conftest import run_cli

    (tmp_path / "AbeHo.py").write_text(
        'print("loaded")\ndef AbeHo(hist, score):\n    print("at", len(hist))\n'
        '    return ["C", "C", "D"]\n')
    status, out, err = run_cli("play", "AbeHo.py", "titfortat", "--turns", "2", "--seed", "1",
                               "--isolation", "none", cwd=tmp_path)
    assert status == 0, err
    printed = [text.strip() for text in out.splitlines() if not text.startswith(("   ", "turn"))
               and "vs" not in text and not text.startswith(("Final", "Each"))]
    assert printed == [], out   # nothing unlabelled
    assert "      | AbeHo: at 3" in out.splitlines()
    for command in (["play", "AbeHo.py", "titfortat", "--turns", "2"],
                    ["tournament", "AbeHo.py", "titfortat", "--jobs", "1"]):
        status, out, err = run_cli(*command, "--seed", "1", "--isolation", "none",
                                   "--format", "json", cwd=tmp_path)
        assert status == 0, err
        json.loads(out)
