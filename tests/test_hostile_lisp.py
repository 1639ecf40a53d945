"""The hostile suite for Common Lisp (on real SBCL) and Hy agents, under both process modes.

Common Lisp agents loop forever (also with interrupts disabled, so only a kill from
outside stops them), signal errors, exhaust the control stack and the heap, print to
*standard-output*, write forged replies to the real stdout, and call (sb-ext:exit); Hy
agents spin, raise and leave their process. The tournament must finish with each fault
recorded by kind, and games between honest agents (one of them a Common Lisp agent) must
be the same with or without them.
"""
from __future__ import annotations

import shutil

import pytest

from harness.isolation import sandbox

from conftest import IN_CI
from test_hostile import HOSTILE, RunReader, run_tournament

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

LISP_HOSTILE = ["LispLooper", "LispStubborn", "LispErrorer", "LispStackSmasher",
                "LispHeapHog", "LispPrinter", "LispStdoutWriter", "LispExiter", "LispKeyring",
                "LispForker"]
HY_HOSTILE = ["HySpinner", "HyRaiser", "HyExiter", "HyKeyring"]
HONEST_LISP = """(defun LispTitForTat (hist score)
  (declare (ignore score))
  (if (null hist)
      (list 'C 'C 'C)
      (mapcar #'second (last hist 3))))
"""
HONEST = ["titfortat", "grudger", "random", "LispTitForTat"]


class LispRun(RunReader):
    def __init__(self, workdir, isolation):
        self.isolation = isolation
        agents = workdir / "agents"
        agents.mkdir()
        for name in LISP_HOSTILE:
            shutil.copy(HOSTILE / f"{name}.lisp", agents)
        for name in HY_HOSTILE:
            shutil.copy(HOSTILE / f"{name}.hy", agents)
        honest = workdir / "honest"
        honest.mkdir()
        (honest / "LispTitForTat.lisp").write_text(HONEST_LISP)
        others = ["titfortat", "grudger", "random", str(honest / "LispTitForTat.lisp")]
        self.result = run_tournament(workdir, [agents, *others], isolation, max_rounds=1)
        self.honest = run_tournament(workdir, others, isolation, max_rounds=1)

    def intended(self, name):
        return {moves for moves, fault in self.turns_of(name) if fault is None}


@pytest.fixture(scope="module", params=["sandbox", "process"])
def lisp_run(request, tmp_path_factory):
    if shutil.which("sbcl") is None:
        if IN_CI:
            pytest.fail("sbcl is not installed - CI must install it", pytrace=False)
        pytest.skip("sbcl is not installed (apt-get install sbcl)")
    if request.param == "sandbox" and sandbox.support().flavor is None:
        if IN_CI:
            pytest.fail(f"the sandbox does not run in CI: {sandbox.support().reason}",
                        pytrace=False)
        pytest.skip(sandbox.support().reason)
    return LispRun(tmp_path_factory.mktemp(f"hostile-lisp-{request.param}"), request.param)


def test_every_agent_loads_and_the_tournament_finishes(lisp_run):
    agents = lisp_run.result["agents"]
    assert {name: agents[name]["status"] for name in HONEST} == dict.fromkeys(HONEST, "ok")
    for name in LISP_HOSTILE + HY_HOSTILE:
        assert agents[name]["status"] in ("ok", "crashed", "disqualified"), (name, agents[name])
    assert len(lisp_run.result["rounds"]) == 1


@pytest.mark.parametrize("name", ["LispLooper", "LispStubborn", "HySpinner"])
def test_endless_loops_time_out_every_turn(lisp_run, name):
    turns = list(lisp_run.turns_of(name))
    assert turns and all(fault and fault[0] == "timeout" for _moves, fault in turns)


@pytest.mark.parametrize("name", ["LispErrorer", "HyRaiser"])
def test_errors_are_exception_faults_with_their_message(lisp_run, name):
    turns = list(lisp_run.turns_of(name))
    assert turns and all(fault and fault[0] == "exception" for _moves, fault in turns)
    text = " ".join(lisp_run.messages(name))
    if name == "LispErrorer":
        assert "hostile agent signalling on purpose" in text
    else:
        assert "hostile Hy agent raising on purpose" in text and "SystemExit" in text


def test_exhausting_the_stack_or_the_heap_is_a_fault_not_the_end_of_the_monitor(lisp_run):
    for name in ["LispStackSmasher", "LispHeapHog"]:
        faults = lisp_run.faults(name)
        assert faults and set(faults) <= {"exception", "crash", "timeout"}, (name, faults)
    assert "stack" in " ".join(lisp_run.messages("LispStackSmasher")).lower()


@pytest.mark.parametrize("name", ["LispExiter", "HyExiter"])
def test_leaving_the_process_is_a_fault_and_the_next_game_gets_a_new_process(lisp_run, name):
    games = [g for g in lisp_run.result["games"] if name in (g["a"], g["b"])]
    faults = lisp_run.faults(name)
    assert faults and set(faults) <= {"crash", "exception"}
    assert sum(faults.values()) >= len(games)   # at least one per game: each a new process


@pytest.mark.parametrize("name", ["LispPrinter", "LispStdoutWriter"])
def test_output_never_reaches_the_protocol(lisp_run, name):
    assert set(lisp_run.faults(name)) <= {"timeout"}
    assert lisp_run.intended(name) == {"CCC"}        # the forged "MOVES DDD" never counted


@pytest.mark.parametrize("name", ["LispKeyring", "HyKeyring"])
def test_the_keyring_is_out_of_reach_from_lisp_and_hy(lisp_run, name):
    """keyctl from sb-alien or ctypes is denied by the seccomp filter (both modes)."""
    assert lisp_run.faults(name) == {}
    assert lisp_run.intended(name) == {"CCC"}


def test_forks_from_sbcl_stay_within_the_agents_process_limit(lisp_run):
    """fork(2) from SBCL: within a cgroup per agent (at most 32 processes) where one can be
    made, denied where not. The agent tries only in a PID namespace of its own (its guard):
    the sandbox's, a game's world (harness/isolation/world.py); not under a root monitor's `process`,
    whose games are plain forks."""
    from harness.isolation import cgroups

    may_fork = lisp_run.isolation == "sandbox" and cgroups.available() is not None
    # forking dozens of SBCL images takes time: on a busy machine a turn may time out
    assert set(lisp_run.faults("LispForker")) <= {"timeout"}
    moves = lisp_run.intended("LispForker")
    assert moves and all(move[0] == "C" for move in moves)   # never past the limit
    if may_fork:   # turn 1 of a game forks (CDC); turn 2 finds no room left (CCC)
        assert "CDC" in moves and moves <= {"CDC", "CCC"}
    else:
        assert moves == {"CCC"}


def test_what_a_lisp_agent_prints_is_kept_for_the_instructor(lisp_run):
    output = lisp_run.result["agents"]["LispPrinter"]["output"]
    assert "MOVES DDD" in output and "more bytes not kept" in output


def test_honest_games_are_the_same_with_or_without_hostile_lisp_and_hy_agents(lisp_run):
    def honest_games(result):
        return {(g["round"], g["a"], g["b"]): (g["score"], g["turns"]) for g in result["games"]
                if g["a"] in HONEST and g["b"] in HONEST}

    with_hostile, alone = honest_games(lisp_run.result), honest_games(lisp_run.honest)
    assert len(with_hostile) == 6 and with_hostile == alone
