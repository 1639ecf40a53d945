"""An agent's status (ok, load-error, crashed, disqualified) comes from what the run recorded:
its faults, its load error, its disqualification. So every runner, and a run resumed from its
record, says the same."""

import os
import signal

import pytest

from harness.agents.specs import builtin_spec, file_spec
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import GameRecord, play_game
from harness.engine.results import Entrant, settle_statuses
from harness.engine.tournament import Settings, run_tournament
from harness.isolation.handles.agent_handle import Fault
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, stop_after_round

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

QUIET = GameParams(flip=FlipParams(0.0, 0.0))
CRASHER = AGENTS / "core" / "Crasher.py"


def statuses(result):
    return {e.name: (e.status, e.message) for e in result.entrants}


def game_with_faults(round_number, a, b, faults):
    record = GameRecord(round_number, a, b, 3, 0)
    record.fault_at.update(faults)
    return record


def test_status_is_derived_from_recorded_faults_load_errors_and_disqualifications():
    entrants = [Entrant(builtin_spec(name)) for name in ("a1", "b2", "c3", "d4")]
    entrants.append(Entrant(builtin_spec("e5"), "load-error", "no such function"))
    entrants.append(Entrant(builtin_spec("f6"), "load-error", "syntax error"))
    games = [game_with_faults(1, "a1", "b2", {("a", 0): Fault("timeout", "slow"),
                                              ("b", 2): Fault("crash", "first death")}),
             game_with_faults(2, "b2", "c3", {("a", 1): Fault("crash", "second death"),
                                              ("b", 0): Fault("crash", "c3 died")})]
    settle_statuses(entrants, games, {"c3": "5 faults (limit 5)"},
                    {"a1": None, "b2": 2, "c3": 2, "d4": 1, "e5": 0, "f6": 3})
    assert {e.name: (e.status, e.message) for e in entrants} == {
        "a1": ("ok", None),                       # a timeout is no crash
        "b2": ("crashed", "crashed: first death"),  # the first crash in the record says why
        "c3": ("disqualified", "5 faults (limit 5)"),
        "d4": ("ok", None),
        "e5": ("disqualified", "does not load: no such function"),  # out before round 1
        "f6": ("load-error", "syntax error")}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_crash_is_the_agents_status_with_any_runner(jobs):
    result = run_tournament([file_spec(CRASHER), builtin_spec("titfortat"),
                             builtin_spec("defect")], 3,
                            Settings(game=QUIET, isolation=Isolation("process", 5.0),
                                     jobs=jobs, max_rounds=1))
    status, message = statuses(result)["Crasher"]
    assert status == "crashed"
    assert message.startswith("crashed: process exited with status 3")
    assert statuses(result)["titfortat"] == ("ok", None)


def test_a_crash_in_a_forked_worker_is_the_agents_status_too(sbcl):
    """With --isolation none and several jobs, games run in forked workers: what their
    handles saw never reaches the parent's, but the recorded crash does."""
    result = run_tournament([file_spec(AGENTS / "hostile" / "LispExiter.lisp"),
                             builtin_spec("titfortat"), builtin_spec("defect")], 3,
                            Settings(game=QUIET, isolation=Isolation("none", 5.0), jobs=2,
                                     max_rounds=1))
    assert statuses(result)["LispExiter"][0] == "crashed"


def test_a_resumed_run_says_crashed_for_a_crash_before_it_stopped(tmp_path, monkeypatch):
    """Crasher crashes in round 1 and is dropped there: after the resume nothing crashes,
    and the status still says it did, as the uninterrupted run does."""
    from harness.run import tournament_session as session
    specs = [file_spec(CRASHER), builtin_spec("grudger"), builtin_spec("defect"),
             builtin_spec("titfortat")]
    settings = Settings(game=QUIET, isolation=Isolation("process", 5.0), jobs=1)
    whole = run_tournament(specs, 5, settings)
    assert whole.standings[-1].agent == "Crasher" and whole.standings[-1].dropped_in == 1

    path = tmp_path / "run.sqlite"
    with monkeypatch.context() as patched:
        stop_after_round(patched, 1)
        with pytest.raises(session.RecordInterrupted):
            session.run(specs, 5, settings, db=path, quiet=True)
    resumed, note = session.resume(path, settings.isolation, quiet=True)
    assert "resumed after round 1" in note
    assert statuses(resumed) == statuses(whole)
    assert statuses(resumed)["Crasher"][0] == "crashed"


def test_an_agent_that_cannot_be_restarted_records_one_crash_and_then_plays_the_default(
        shared_folder):
    """Refuser's host dies between games (killed from outside, here: a timeout or a crash
    ends only a game's process, and the host forks the next): the next game's first call
    finds it dead, a crash, and out for that game. A flag beside it makes its module refuse
    to load, so no new host loads for the game after: one crash that says so, then the
    default, silently. (A file deleted or edited since changes nothing: a run loads the
    bytes it read first.)"""
    agent = shared_folder / "Refuser.py"
    flag = shared_folder / "refuse"
    shared_folder.chmod(0o777)   # a root monitor's agent is a user of its own
    agent.write_text(f"import os\n\nif os.path.exists({str(flag)!r}):\n"
                     "    raise RuntimeError('told not to load')\n\n\n"
                     "def Refuser(hist, score):\n    return ['C', 'C', 'C']\n")
    params = GameParams(flip=FlipParams(0.0, 0.0))
    isolation = Isolation("process", 2.0)
    handle = open_handle(file_spec(agent), isolation)
    other = open_handle(builtin_spec("titfortat"), isolation)
    try:
        games = [play_game(handle, other, 3, 1, params)]
        flag.touch()
        os.killpg(handle.host.process.pid, signal.SIGKILL)
        handle.host.process.wait()
        games += [play_game(handle, other, 3, seed, params) for seed in (2, 3, 4)]
    finally:
        handle.close()
        other.close()
    faults = [[(turn, fault.kind) for turn, fault in game.faults("a")] for game in games]
    assert faults == [[], [(1, "crash")], [(1, "crash")], []]   # turns count from 1
    assert games[2].faults("a")[0][1].message.startswith("could not be restarted: ")
    assert all(t.intended_a == "CCC" for game in games for t in game.turns)
