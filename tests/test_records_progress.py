"""Progress: a bar on stderr when it is a terminal (a real pseudo-terminal here), a line
per round when it is not, nothing with --quiet."""
import json
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


def test_off_a_terminal_a_line_per_round_on_stderr_never_on_stdout():
    """A log, CI, `nohup`: no bar to redraw, but a run is never silent for a whole round;
    stdout holds the result alone (the JSON parses)."""
    status, out, err = run_cli("tournament", *FIELD, *RUN, "--format", "json")
    assert status == 0
    rounds = json.loads(out)["rounds"]
    assert "\r" not in err and "[#" not in err
    said = [line for line in err.splitlines() if "predict" not in line]  # --seed's note
    assert [line.split(": games ")[0] for line in said] == [
        f"pdharness: round {r['round']} done" for r in rounds]
    games = 10 + 6 + 3 + 1   # five agents, one dropped a round here
    assert said[0].startswith("pdharness: round 1 done: games 10/≤20 ")
    assert said[-1].startswith(f"pdharness: round {len(rounds)} done: games {games}/{games} ")
    assert all("elapsed" in line for line in said)


def test_quiet_means_no_progress_off_a_terminal_either():
    status, out, err = run_cli("tournament", *FIELD, *RUN, "--quiet")
    assert status == 0 and "winner" in out
    assert [line for line in err.splitlines() if "predict" not in line] == []


def test_off_a_terminal_between_rounds_a_line_a_minute_at_most(monkeypatch):
    """Between two rounds' lines (a long round: hanging agents) a line as soon as a minute
    has passed since the last one, and none before."""
    import io

    from harness.run import progress

    now = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    log = io.StringIO()
    lines = progress.display(log)
    assert isinstance(lines, progress.Lines)
    for _ in range(5):           # games done within the minute: nothing
        now[0] += 10
        lines.draw(0.1, "games 1/10")
    assert log.getvalue() == ""
    now[0] += 10.5               # 60.5 s since it began
    lines.draw(0.2, "games 2/10")
    now[0] += 30
    lines.draw(0.3, "games 3/10")
    lines.draw(0.5, "round 1 done: games 5/10", milestone=True)
    assert log.getvalue().splitlines() == ["pdharness: games 2/10",
                                           "pdharness: round 1 done: games 5/10"]


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
