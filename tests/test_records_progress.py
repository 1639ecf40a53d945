"""The progress bar: on stderr when it is a terminal (a real pseudo-terminal here), never
when it is not, nor with --quiet."""
import os
import pty
import subprocess
import sys
import threading

from conftest import AGENTS, ROOT, run_cli

FIELD = (str(AGENTS / "records" / "Sleepy.py"), "titfortat", "grudger", "defect", "random")
RUN = ("--seed", "3", "--isolation", "none", "--jobs", "1", "--length", "20", "30")


def on_a_terminal(*args) -> tuple[int, str, str]:
    """Run pdharness with stderr on a pseudo-terminal: (status, stdout, terminal output)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "harness", *map(str, args)],
                               stdout=subprocess.PIPE, stderr=terminal, text=True,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)))
    os.close(terminal)
    seen = bytearray()

    def drain():
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:       # EIO: the terminal's last writer is gone
                return
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    out = process.stdout.read()
    process.wait(timeout=300)
    reader.join(timeout=60)
    os.close(controller)
    return process.returncode, out, seen.decode("utf-8", "replace")


def test_a_terminal_sees_games_done_of_the_total_elapsed_and_an_estimate():
    status, out, shown = on_a_terminal("tournament", *FIELD, *RUN)
    assert status == 0
    assert "winner" in out and "[#" not in out
    redraws = [line for line in shown.split("\r") if line.startswith("[")]
    assert redraws, shown
    assert any("(round 1: " in line for line in redraws)
    last = redraws[-1]
    assert "elapsed" in last and "est. " in last and "≤0" not in last
    # no estimate before the first round is over or a quarter of the games are played
    early = [line for line in redraws if "(round 1: " in line
             and int(line.split("games ")[1].split("/")[0]) < 5]
    assert early and not any("left" in line for line in early)
    # five agents, one dropped per round at most: 10 + 6 + 3 + 1 games
    assert any("games 0/≤20 (round 1: 0/10)" in line for line in redraws)
    assert all(len(line.rstrip()) < 79 for line in redraws)  # fits, uncut, in 80 columns
    assert shown.endswith("\r")   # the bar is wiped before the result is printed


def test_quiet_means_no_bar_even_on_a_terminal():
    status, out, shown = on_a_terminal("tournament", *FIELD, *RUN, "--quiet")
    assert status == 0 and "winner" in out
    assert "[" not in shown and "elapsed" not in shown


def test_no_bar_when_stderr_is_not_a_terminal():
    status, out, err = run_cli("tournament", *FIELD, *RUN)
    assert status == 0
    assert [line for line in err.splitlines() if "predict" not in line] == []  # --seed's note


def test_replicates_show_their_own_count():
    status, _, shown = on_a_terminal("tournament", "titfortat", "defect", "random",
                                     "--seed", "1", "--isolation", "none",
                                     "--replicates", "3", "--jobs", "1")
    assert status == 0
    assert "replicates 3/3" in shown


def test_the_estimate_bounds_the_games_still_to_come():
    from harness.core.rules import GameLength
    from harness.engine.tournament import Settings
    from harness.run.progress import TournamentProgress, clock

    progress = TournamentProgress(Settings(length=GameLength(10, 10), max_rounds=3))
    progress.remaining, progress.round = 6, 1
    assert progress._future_games() == [10, 6]      # rounds 2 and 3 only (--max-rounds)
    assert clock(59.6) == "1:00" and clock(3725) == "1:02:05"
