"""Nothing lost: a recorded run stopped by Ctrl-C or kill -9 keeps every completed round, and
`pdharness resume` finishes it with the result the uninterrupted run gives."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import AGENTS, ROOT, all_gone, children, console_script, default_stop_signals, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

RECORD_AGENTS = AGENTS / "records"
# Sleepy thinks 4 ms a turn: a run lasts seconds, long enough to be stopped mid-way.
FIELD = (str(RECORD_AGENTS), "titfortat", "grudger", "pavlov", "random", "defect")
# a time limit no busy machine reaches: a late honest answer would be a fault, and the
# resumed run would differ from the uninterrupted one for that reason alone
GAME = ("--seed", "11", "--length", "30", "40", "--timeout", "30")
REFERENCE = {}


def uninterrupted_run(isolation):
    if isolation not in REFERENCE:
        status, out, err = run_cli("tournament", *FIELD, *GAME, "--isolation", isolation,
                                   "--format", "json")
        assert status == 0, err
        REFERENCE[isolation] = json.loads(out)
    return REFERENCE[isolation]


@pytest.fixture(scope="module")
def uninterrupted():
    return uninterrupted_run("process")


def rounds_in(path) -> int:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT count(*) FROM round").fetchone()[0]


def start_and_stop(tmp_path, stop, *extra, isolation="process", console=False,
                   to_group=False, seen=None):
    """A real recorded run in its own process, stopped by `stop` (a signal) once its first
    round is in the record: (exit status, stderr, the record's path). `console`: run the
    installed console script; `to_group`: the signal goes to the run's whole process group
    (as `timeout`, systemd or a batch system send it); `seen`, a dict: filled with the
    run's child processes as they were when it was stopped (conftest.children)."""
    path = tmp_path / "run.sqlite"
    start = [console_script()] if console else [sys.executable, "-m", "harness"]
    process = subprocess.Popen(
        [*start, "tournament", *FIELD, *GAME, "--isolation",
         isolation, "--db", str(path), "--format", "json", "--quiet", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        # a bug of ours shows its traceback in the failure, not just exit status 70
        env=dict(os.environ, PYTHONPATH=str(ROOT), PDHARNESS_DEBUG="1"),
        start_new_session=to_group,
        preexec_fn=default_stop_signals)
    try:
        give_up = time.monotonic() + 300   # not a measurement: only a guard against hanging
        while True:
            assert process.poll() is None, "the run ended before it could be stopped"
            assert time.monotonic() < give_up, "no round was recorded"
            if path.exists():
                try:
                    if rounds_in(path) >= 1:
                        break
                except sqlite3.OperationalError:
                    pass  # the schema is being written
            time.sleep(0.02)
        if seen is not None:
            seen.update(children(process.pid))
        if to_group:
            os.killpg(process.pid, stop)
        else:
            process.send_signal(stop)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, err, path


def resume_json(path, *extra):
    status, out, err = run_cli("resume", path, "--format", "json", *extra)
    assert status == 0, err
    return json.loads(out), err


def said_of_the_stop(err: str) -> list[str]:
    """stderr without the notes before the run (--seed's; a root monitor's `process`
    agents keeping their right to read): what the stop said."""
    return [line for line in err.strip().splitlines()
            if "predict" not in line and not line.startswith("pdharness: note: process")]


@pytest.mark.parametrize("isolation,jobs", [("process", "2"), ("none", "1"), ("none", "2")])
def test_ctrl_c_keeps_the_completed_rounds_says_how_to_resume_and_resume_finishes_it(
        tmp_path, isolation, jobs):
    # with isolation none and one job the Ctrl-C lands inside Sleepy's own code: it must
    # stop the run, not count as Sleepy's fault
    uninterrupted = uninterrupted_run(isolation)
    status, err, path = start_and_stop(tmp_path, signal.SIGINT, "--jobs", jobs,
                                       isolation=isolation)
    assert status == 130, err
    lines = said_of_the_stop(err)
    kept = rounds_in(path)
    assert lines == [f"pdharness: interrupted; {kept} completed round{'s' * (kept != 1)} "
                     f"kept in {path}",
                     f"pdharness: to finish the run: pdharness resume {path} --timeout 30"]
    assert 1 <= kept < len(uninterrupted["rounds"])

    status, out, _ = run_cli("show", path)
    assert status == 0
    assert out.startswith(f"Incomplete record: {kept} completed round")

    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM fault WHERE message LIKE "
                                  "'%KeyboardInterrupt%'").fetchone() == (0,)
    resumed, note = resume_json(path, "--isolation", isolation, "--timeout", "30")
    assert f"resumed after round {kept}" in note
    assert resumed == uninterrupted


@pytest.mark.parametrize("isolation,jobs,to_group", [
    ("process", "2", False), ("none", "1", False), ("none", "2", False),
    ("none", "2", True)], ids=["process-2", "none-1", "none-2", "none-2-to-the-group"])
def test_sigterm_ends_a_run_as_ctrl_c_does(tmp_path, isolation, jobs, to_group):
    """A `kill`, `timeout`, a batch system's time limit: the installed console script
    stops as for Ctrl-C (the record kept, the resume hint, 128 + SIGTERM) and leaves no
    process behind, its forked workers (none, 2 jobs) included, also when every process
    of the run got the signal; resume finishes it with the uninterrupted result."""
    uninterrupted = uninterrupted_run(isolation)
    seen: dict = {}
    status, err, path = start_and_stop(tmp_path, signal.SIGTERM, "--jobs", jobs,
                                       isolation=isolation, console=True,
                                       to_group=to_group, seen=seen)
    assert status == 128 + signal.SIGTERM, err
    lines = said_of_the_stop(err)
    kept = rounds_in(path)
    assert lines == [f"pdharness: interrupted; {kept} completed round{'s' * (kept != 1)} "
                     f"kept in {path}",
                     f"pdharness: to finish the run: pdharness resume {path} --timeout 30"]
    assert 1 <= kept < len(uninterrupted["rounds"])
    # none with 1 job runs everything in the monitor's own process
    assert bool(seen) == ((isolation, jobs) != ("none", "1"))
    assert all_gone(seen) == []
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM fault WHERE message LIKE "
                                  "'%KeyboardInterrupt%'").fetchone() == (0,)
    resumed, note = resume_json(path, "--isolation", isolation, "--timeout", "30")
    assert f"resumed after round {kept}" in note
    assert resumed == uninterrupted


def test_the_resumed_report_keeps_the_runs_start_date(tmp_path, uninterrupted):
    status, err, path = start_and_stop(tmp_path, signal.SIGINT, "--jobs", "2")
    assert status == 130, err
    report = tmp_path / "report.html"
    resumed, _note = resume_json(path, "--isolation", "process", "--timeout", "30",
                                 "--report", report)
    assert resumed == uninterrupted
    with sqlite3.connect(path) as connection:   # the resumed report keeps the run's start
        started = connection.execute("SELECT started_at FROM run").fetchone()[0]
    assert f"run started {started}" in report.read_text(encoding="utf-8")


def test_the_outputs_a_run_asked_for_are_written_when_resume_finishes_it(tmp_path,
                                                                          uninterrupted):
    """--report and --grades are part of the run: an interrupted run writes neither, its
    record keeps them, and resume writes them, without being asked again; a second resume
    does not replace them (nor any file of that name another run wrote)."""
    report, grades = tmp_path / "out" / "report.html", tmp_path / "out" / "grades.csv"
    status, err, path = start_and_stop(tmp_path, signal.SIGINT, "--report", report,
                                       "--grades", grades)
    assert status == 130, err
    assert not report.exists() and not grades.exists()
    resumed, err = resume_json(path, "--isolation", "process", "--timeout", "30")
    assert resumed == uninterrupted
    assert f"the run asked for --report {report}: written when it finishes" in err
    assert report.is_file() and grades.is_file()
    assert [row.split(",")[1] for row in grades.read_text().splitlines()[1:]] == [
        standing["agent"] for standing in uninterrupted["standings"]]
    grades.write_text("another run's grades\n")
    _resumed, err = resume_json(path, "--isolation", "process", "--timeout", "30")
    assert f"the run's --grades {grades} exists: not replaced" in err
    assert grades.read_text() == "another run's grades\n"


def test_kill_9_keeps_the_completed_rounds_and_resume_gives_the_uninterrupted_result(
        tmp_path, uninterrupted):
    status, _, path = start_and_stop(tmp_path, signal.SIGKILL)
    assert status == -signal.SIGKILL
    kept = rounds_in(path)
    assert 1 <= kept < len(uninterrupted["rounds"])
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT finished_at FROM run").fetchone() == (None,)
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        # every kept round is whole: all its games, all their moves
        for number, games, moves, length in connection.execute(
                "SELECT r.number, count(DISTINCT g.id), "
                "(SELECT count(*) FROM move m JOIN game h ON h.id = m.game "
                " WHERE h.round = r.number), r.game_length "
                "FROM round r JOIN game g ON g.round = r.number GROUP BY r.number"):
            expected = len(uninterrupted["rounds"][number - 1]["scores"])
            assert games == expected * (expected - 1) // 2
            assert moves == games * length * 3
    resumed, _ = resume_json(path, "--jobs", "1", "--isolation", "process", "--timeout", "30")
    assert resumed == uninterrupted


def test_kill_9_of_a_run_ends_its_forked_workers(tmp_path):
    """--isolation none with 2 jobs plays in forked workers: killed with the monitor, mid-round
    (they die with it: nothing would ever read what they play)."""
    seen: dict = {}
    status, _, _path = start_and_stop(tmp_path, signal.SIGKILL, "--jobs", "2",
                                      isolation="none", seen=seen)
    assert status == -signal.SIGKILL
    assert len(seen) == 2
    assert all_gone(seen) == []


def test_resuming_a_complete_record_says_so_and_prints_its_result(tmp_path):
    path = tmp_path / "run.sqlite"
    status, out, err = run_cli("tournament", "defect", "titfortat", "random", "--seed", "4",
                               "--isolation", "none", "--db", path, "--format", "json")
    assert status == 0, err
    resumed, note = resume_json(path)
    assert "already complete" in note
    assert resumed == json.loads(out)


# -- resuming from every round: a record cut back to round k, as a stopped run leaves it -----
def cut_back(path, kept: int) -> None:
    """What a run stopped after round `kept` leaves: later rounds absent, no final ranks."""
    with sqlite3.connect(path) as connection:
        later = "(SELECT id FROM game WHERE round > ?)"
        connection.execute(f"DELETE FROM move WHERE game IN {later}", (kept,))
        connection.execute(f"DELETE FROM fault WHERE game IN {later}", (kept,))
        connection.execute("DELETE FROM game WHERE round > ?", (kept,))
        connection.execute("DELETE FROM round_score WHERE round > ?", (kept,))
        connection.execute("DELETE FROM round WHERE number > ?", (kept,))
        connection.execute("UPDATE agent SET rank = NULL, score = NULL, output = NULL, "
                           "dropped_in = CASE WHEN dropped_in > ? THEN NULL ELSE dropped_in "
                           "END, status = CASE WHEN status = 'disqualified' AND "
                           "coalesce(dropped_in, 0) > ? THEN 'ok' ELSE status END, "
                           "disqualified = CASE WHEN dropped_in > ? THEN NULL "
                           "ELSE disqualified END", (kept, kept, kept))
        connection.execute("UPDATE run SET finished_at = NULL")


def test_resuming_after_any_round_gives_the_same_result(tmp_path):
    agents = (str(RECORD_AGENTS / "Stumbler.py"), str(RECORD_AGENTS / "Moody.py"),
              "titfortat", "grudger", "random", "pavlov", "defect")
    options = ("--seed", "21", "--isolation", "none", "--max-faults", "40", "--jobs", "1")
    reference = tmp_path / "reference.sqlite"
    status, out, err = run_cli("tournament", *agents, *options, "--db", reference,
                               "--format", "json")
    assert status == 0, err
    whole = json.loads(out)
    assert any(a["status"] == "disqualified" for a in whole["agents"])  # --max-faults bit
    for kept in range(0, len(whole["rounds"])):
        copy = tmp_path / f"cut{kept}.sqlite"
        copy.write_bytes(reference.read_bytes())
        cut_back(copy, kept)
        resumed, _ = resume_json(copy, "--isolation", "none")
        assert resumed == whole, f"resumed after round {kept}"


def test_resume_refuses_an_agent_that_changed_since_the_run_started(tmp_path):
    folder = tmp_path / "agents"
    folder.mkdir()
    agent = folder / "Moody.py"
    agent.write_bytes((RECORD_AGENTS / "Moody.py").read_bytes())
    path = tmp_path / "run.sqlite"
    status, _, err = run_cli("tournament", agent, "defect", "titfortat", "--seed", "2",
                             "--isolation", "none", "--db", path)
    assert status == 0, err
    cut_back(path, 0)
    agent.write_text(agent.read_text() + "\n# a late fix\n")
    status, _, err = run_cli("resume", path)
    assert status == 2
    assert "Moody" in err and "changed since the run started" in err
    agent.unlink()
    status, _, err = run_cli("resume", path)
    assert status == 2 and "is gone" in err and "Traceback" not in err


def test_resume_finishes_replicates_a_stopped_run_did_not_get_to(tmp_path):
    path = tmp_path / "run.sqlite"
    agents = ("defect", "titfortat", "random", "grudger")
    options = ("--seed", "6", "--isolation", "none", "--replicates", "4")
    status, out, err = run_cli("tournament", *agents, *options, "--db", path,
                               "--format", "json")
    assert status == 0, err
    whole = json.loads(out)
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM replicate")
        connection.execute("UPDATE run SET finished_at = NULL")
    status, out, _ = run_cli("show", path)
    assert "its replicates are not" in out
    resumed, _ = resume_json(path, "--isolation", "none")
    assert resumed == whole


STOPS_ITSELF = '''import os, pathlib, signal
_mark = pathlib.Path({mark!r})
if {in_game} and not _mark.exists():   # the load's own run: pass, stop in a game's run
    _mark.touch()
else:
    os.kill(os.getpid(), signal.SIGTERM)   # a SIGTERM landing in the module's own run


def StopsItself(hist, score):
    return ["C", "C", "C"]
'''


@pytest.mark.parametrize("in_game", [False, True], ids=["at-load", "in-a-game"])
def test_a_stop_landing_while_an_agent_module_runs_stops_the_run(tmp_path, in_game):
    """Under none, a game runs the agent's module anew in the monitor: a SIGTERM landing
    there (or in the load's run) stops the run, as in a call; it was the agent's load
    error once, and the run went on to exit 0."""
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "StopsItself.py").write_text(
        STOPS_ITSELF.format(mark=str(tmp_path / "loaded"), in_game=in_game))
    status, _, err = run_cli("tournament", folder, "titfortat", "grudger", "--seed", "3",
                             "--isolation", "none", "--jobs", "1", "--format", "json")
    assert status == 128 + signal.SIGTERM, err
    assert "while loading" not in err and "did not load" not in err
