"""The hostile suite: a tournament of agents that misbehave in every way we could think of,
next to honest ones, under `--isolation sandbox` and under `--isolation process`.

What must hold: the tournament finishes with every hostile agent's faults recorded
by kind; the monitor's process survives; with a fixed seed every game between two honest
agents is the same (scores and moves) with or without the hostile agents; no file appears
outside the run's own output; nothing from an agent is unpickled or evaluated in the
monitor. Under `process` isolation some of these do not hold, and the tests say which.

Each tournament runs in a separate monitor process (a real one, from a short program), so
an agent that kills its parent would end that process, not the test run.
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from harness.isolation import sandbox

from conftest import AGENTS, IN_CI, ROOT

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

HOSTILE = AGENTS / "hostile"
# agents that carry state from game to game: played in tests/test_fresh_games.py
CARRIERS = {"GameCounter", "ModuleStasher", "EnvCounter", "ThreadCounter",
            "GrandchildCounter", "LengthSpy", "FdFlagger", "PidfsSpy", "CacheCourier",
            "CgroupSpy", "PtySpy"}
# agents that take more than their time limit's worth of CPU: played in tests/test_hostile_time.py
TIME_THIEVES = {"CrowdBehindLock", "CrowdAsleepAtDeadline", "CrowdOfStoppedChildren",
                "CrowdOfOrphans"}
PYTHON_HOSTILE = sorted(path.stem for path in HOSTILE.glob("*.py")
                        if path.stem not in CARRIERS | TIME_THIEVES)
HONEST = ["titfortat", "grudger", "pavlov", "random", "KhosmoodLevinson"]
# What Pickler and Evaluator leave if the monitor ever runs their code, and what Planter
# leaves in the machine's /tmp (where a root monitor's `process` games write): each run's
# own names (see `prepare`), so two suites on one machine never see each other's
MARKERS = ["unpickled", "evaluated", "planted"]
MARKER_PREFIX = "/tmp/pdharness-hostile-"
SETTINGS = {"seed": 2024, "flip": [0.1, 0.5], "length": [2, 2], "timeout": 0.5,
            "jobs": 2, "max_rounds": 2, "max_faults": 3}

# Agents that would harm the test machine outside the sandbox (they refuse to act outside a
# PID namespace of their own), or end the monitor: left out of the `process` run.
ONLY_IN_SANDBOX = {"Massacre", "Forker", "ParentKiller"}

RUNNER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from harness.agents.specs import resolve
from harness.isolation.handles.opening import Isolation
from harness.core.rules import FlipParams, GameLength, GameParams
from harness.engine.tournament import Settings, run_tournament

o = json.loads(sys.argv[2])
settings = Settings(
    game=GameParams(flip=FlipParams(*o["flip"])),
    length=GameLength(*o["length"]), isolation=Isolation(o["isolation"], o["timeout"]),
    jobs=o["jobs"], max_rounds=o["max_rounds"], max_faults=o["max_faults"])
result = run_tournament(resolve(o["agents"]), o["seed"], settings)

def fault(f):
    return f and [f.kind, f.message]

print(json.dumps({
    "agents": {e.name: {"status": e.status, "message": e.message, "output": e.output}
               for e in result.entrants},
    "rounds": [{"number": r.number, "scores": r.scores, "dropped": r.dropped}
               for r in result.rounds],
    "games": [{"round": g.round, "a": g.a, "b": g.b, "score": list(g.score),
               "turns": [[t.intended_a, t.played_a, t.intended_b, t.played_b,
                          fault(t.fault_a), fault(t.fault_b)] for t in g.turns]}
              for g in result.games],
    "standings": {s.agent: {"faults": s.faults, "dropped_in": s.dropped_in}
                  for s in result.standings}}))
"""


class Listener:
    """A TCP port on the machine's loopback, counting the connections that reach it."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))  # a free port the kernel picks: never a fixed one
        self.socket.listen(64)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.connections += 1
            connection.close()

    def close(self):
        self.socket.close()


def snapshot(folder: Path) -> dict[str, int]:
    return {str(path.relative_to(folder)): path.stat().st_size
            for path in sorted(folder.rglob("*")) if path.is_file()}


def run_tournament(workdir: Path, agents, isolation: str, **overrides) -> dict:
    """A tournament in a monitor process of its own, working in `workdir`."""
    options = dict(SETTINGS, agents=[str(a) for a in agents], isolation=isolation, **overrides)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", RUNNER, str(ROOT), json.dumps(options)],
                          capture_output=True, text=True, cwd=workdir, env=env, timeout=900)
    assert done.returncode == 0, f"the monitor died ({done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def prepare(workdir: Path, names, network_port: int = 0, run_id: str = "") -> list[Path]:
    """Copies of the hostile agents and one honest agent file, in the run's own folder;
    Networker knocks on `network_port`, the port this run's listener was given, and the
    markers agents leave in /tmp are named with `run_id` (`marker`)."""
    agents = workdir / "agents"
    agents.mkdir(parents=True)
    for name in names:
        source = (HOSTILE / f"{name}.py").read_text()
        (agents / f"{name}.py").write_text(
            source.replace(f'"{MARKER_PREFIX}', f'"{MARKER_PREFIX}{run_id}-'))
    networker = agents / "Networker.py"
    if networker.exists():
        networker.write_text(networker.read_text().replace("PORT = 0", f"PORT = {network_port}"))
    honest = workdir / "honest"
    honest.mkdir()
    shutil.copy(ROOT / "student_agents" / "KhosmoodLevinson.py", honest)
    return [agents, *HONEST[:-1], honest / "KhosmoodLevinson.py"]


def marker(run_id: str, kind: str) -> str:
    """The path of this run's marker of `kind` (one of MARKERS)."""
    return f"{MARKER_PREFIX}{run_id}-{kind}"


def remove_markers(run_id: str):
    for kind in MARKERS:
        if os.path.exists(marker(run_id, kind)):
            os.remove(marker(run_id, kind))


class RunReader:
    """Reading a hostile run's JSON: faults and turns by agent."""

    def faults(self, name) -> dict[str, int]:
        return {kind: n for kind, n in self.result["standings"][name]["faults"].items() if n}

    def messages(self, name) -> set[str]:
        return {fault[1] for _moves, fault in self.turns_of(name) if fault}

    def faults_in_round(self, name, number) -> int:
        return sum(1 for game in self.result["games"] if game["round"] == number
                   for turn in game["turns"]
                   if (game["a"] == name and turn[4]) or (game["b"] == name and turn[5]))

    def turns_of(self, name):
        """(intended moves, fault) for every turn `name` played, over all games."""
        for game in self.result["games"]:
            for turn in game["turns"]:
                if game["a"] == name:
                    yield turn[0], turn[4]
                elif game["b"] == name:
                    yield turn[2], turn[5]


class HostileRun(RunReader):
    """One hostile tournament and an honest-only one with the same seed, and what they
    left behind."""

    def __init__(self, workdir: Path, isolation: str):
        self.isolation = isolation
        names = [n for n in PYTHON_HOSTILE
                 if isolation == "sandbox" or n not in ONLY_IN_SANDBOX]
        import secrets

        run_id = secrets.token_hex(8)
        self.agents_dir = workdir / "agents"
        listener = Listener()
        arguments = prepare(workdir, names, listener.port, run_id)
        self.before = snapshot(workdir)
        try:
            self.result = run_tournament(workdir, arguments, isolation)
        finally:
            listener.close()
        self.after = snapshot(workdir)
        self.markers = {kind: os.path.exists(marker(run_id, kind)) for kind in MARKERS}
        remove_markers(run_id)
        self.connections = listener.connections
        self.honest = run_tournament(workdir, arguments[1:], isolation)

    def intended(self, name, turn_number=None) -> set[str]:
        """The moves `name` intended on turns without a fault (on one turn of each game)."""
        moves = set()
        for game in self.result["games"]:
            if name not in (game["a"], game["b"]):
                continue
            for number, turn in enumerate(game["turns"], 1):
                mine, fault = (turn[0], turn[4]) if game["a"] == name else (turn[2], turn[5])
                if fault is None and turn_number in (None, number):
                    moves.add(mine)
        return moves


def _require_sandbox():
    found = sandbox.support()
    if found.flavor is None:
        if IN_CI:
            pytest.fail(f"the sandbox does not run in CI: {found.reason}", pytrace=False)
        pytest.skip(found.reason)


@pytest.fixture(scope="module")
def sandboxed_run(tmp_path_factory):
    if shutil.which("bwrap") is None and not IN_CI:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap)")
    _require_sandbox()
    return HostileRun(tmp_path_factory.mktemp("hostile-sandbox"), "sandbox")


@pytest.fixture(scope="module")
def process_run():
    """In a folder of yours, not under /tmp: a game's /tmp is its own even without the
    sandbox (harness/isolation/world.py), and what `process` leaves open is shown where it is
    open."""
    import tempfile

    workdir = Path(tempfile.mkdtemp(prefix="pdharness-hostile-", dir="/var/tmp"))
    try:
        yield HostileRun(workdir, "process")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(params=["sandboxed_run", "process_run"])
def run(request):
    """Each test that takes `run` holds under both isolation modes."""
    return request.getfixturevalue(request.param)


# -- faults, by kind ---------------------------------------------------------------------------
EVERY_TURN = {
    "Spinner": "timeout", "Sleeper": "timeout",
    "Thrower": "exception", "SysExiter": "exception", "SystemExitRaiser": "exception",
    "Interrupter": "exception",
    "NoneAnswer": "invalid", "NumberAnswer": "invalid", "DictAnswer": "invalid",
    "WrongLength": "invalid", "BadIterable": "invalid", "Evaluator": "invalid",
}
def test_the_tournament_finishes_with_every_agent_accounted_for(run):
    agents = run.result["agents"]
    assert set(HONEST) <= set(agents)
    assert all(agents[name]["status"] == "ok" for name in HONEST)
    assert len(run.result["rounds"]) == 2
    first_round = [g for g in run.result["games"] if g["round"] == 1]
    # every agent that loads plays every other; one that does not is out before round 1
    playing = [n for n, s in run.result["standings"].items() if s["dropped_in"] != 0]
    assert len(first_round) == len(playing) * (len(playing) - 1) // 2
    assert len(agents) - len(playing) == 1   # DiesOnLoad
    assert all(len(game["turns"]) == 2 for game in run.result["games"])


@pytest.mark.parametrize("name,kind", sorted(EVERY_TURN.items()))
def test_an_agent_that_misbehaves_every_turn_faults_every_turn_with_its_kind(run, name, kind):
    turns = list(run.turns_of(name))
    assert turns and all(fault is not None and fault[0] == kind for _moves, fault in turns)
    assert run.faults(name) == {kind: len(turns)}


def test_fault_messages_say_what_happened(run):
    messages = {name: {fault[1] for _moves, fault in run.turns_of(name) if fault}
                for name in ["Thrower", "SysExiter", "SystemExitRaiser", "Interrupter",
                             "NoneAnswer", "DictAnswer", "WrongLength", "Spinner"]}
    assert messages["Thrower"] == {"RuntimeError: hostile agent raising on purpose, at "
                                   "Thrower.py:5: raise RuntimeError(\"hostile agent raising "
                                   "on purpose\")"}
    assert messages["SysExiter"] == {"SystemExit: 0, at SysExiter.py:6: sys.exit(0)"}
    assert messages["SystemExitRaiser"] == {
        "SystemExit: 3, at SystemExitRaiser.py:7: raise SystemExit(3)",
        "KeyboardInterrupt, at SystemExitRaiser.py:6: raise KeyboardInterrupt"}
    assert messages["Interrupter"] == {"KeyboardInterrupt, at Interrupter.py:5: "
                                       "raise KeyboardInterrupt"}
    assert messages["NoneAnswer"] == {"returned nothing (None)"}
    assert all("dict" in message for message in messages["DictAnswer"])
    assert any("returned 2 moves" in message for message in messages["WrongLength"])
    assert all("no answer within 0.5 s" in message for message in messages["Spinner"])


def test_a_process_that_dies_is_replaced_for_the_next_game(run):
    """OsExiter dies on its first call of every game: one crash per game, then the
    default answer for the rest of that game, and a fresh process for the next one."""
    games = [g for g in run.result["games"] if "OsExiter" in (g["a"], g["b"])]
    for game in games:
        side = 0 if game["a"] == "OsExiter" else 1
        faults = [turn[4 + side] for turn in game["turns"]]
        assert faults[0][0] == "crash" and "exited with status 0" in faults[0][1]
        assert faults[1:] == [None] * (len(faults) - 1)
    assert run.faults("OsExiter") == {"crash": len(games)}
    assert run.result["agents"]["OsExiter"]["status"] == "disqualified"


def test_memory_hogs_fail_in_their_own_process(run):
    faults = run.faults("MemoryHog")
    assert faults and set(faults) <= {"exception", "timeout"}
    messages = {fault[1] for _moves, fault in run.turns_of("MemoryHog") if fault}
    # 40 GiB at once: refused under the address-space limit (the message names its line)
    assert any(message.startswith("MemoryError") for message in messages), messages


def test_strings_that_equal_both_moves_are_read_by_their_characters(run):
    turns = [(moves, fault) for moves, fault in run.turns_of("Chameleon")]
    assert {fault[0] for _moves, fault in turns if fault} == {"invalid"}
    assert run.intended("Chameleon") == {"DDD"}          # D pretending to be C plays D
    assert run.intended("Chameleon", turn_number=1) == set()


def test_objects_that_run_code_when_unpickled_are_read_as_plain_moves(run):
    assert run.faults("Pickler") == {}
    assert run.intended("Pickler") == {"CCD"}


def test_a_flood_of_output_is_captured_capped_and_never_taken_for_a_reply(run):
    assert set(run.faults("Shouter")) <= {"timeout"}    # printing megabytes takes time
    assert run.intended("Shouter") <= {"CCC"}            # forged "MOVES DDD" lines ignored
    output = run.result["agents"]["Shouter"]["output"]
    assert "more bytes not kept" in output
    assert 0 < len(output) < 4 * 64 * 1024 + 1000       # a cap per process pool, not MBs
    # Forger writes lines without the token into its game channel, two a call: junk under
    # the allowance per request, never a reply; what its function returns is played (its
    # 10000-byte line to stdout may take past 0.5 s on a loaded machine: a timeout then)
    assert run.intended("Forger") <= {"CCC"}
    assert set(run.faults("Forger")) <= {"timeout"}


@pytest.mark.parametrize("name", ["RandomPatcher", "Saboteur"])
def test_patching_random_or_other_agents_changes_only_the_patcher(run, name):
    assert run.faults(name) == {}
    assert run.intended(name) == {"DDD"}


def test_an_agent_that_cannot_start_is_a_load_error_and_the_tournament_goes_on(run):
    entry = run.result["agents"]["DiesOnLoad"]
    assert entry["status"] == "disqualified"   # out before round 1 (not --keep-broken)
    assert "exited with status 7" in entry["message"]
    assert run.faults("DiesOnLoad") == {}                # default answers, no new faults


def test_agents_over_the_fault_limit_are_disqualified_at_the_end_of_the_round(run):
    over = [name for name in PYTHON_HOSTILE if name in run.result["standings"]
            and run.faults_in_round(name, 1) >= 3]
    assert set(EVERY_TURN) <= set(over)
    for name in over:
        assert run.result["agents"][name]["status"] == "disqualified"
        assert run.result["agents"][name]["message"].endswith("faults (limit 3)")
        assert run.result["standings"][name]["dropped_in"] == 1
    second_round = run.result["rounds"][1]["scores"]
    assert not set(over) & set(second_round)


# -- honest games ------------------------------------------------------------------------------
def test_games_between_honest_agents_are_the_same_with_or_without_hostile_ones(run):
    def honest_games(result):
        return {(g["round"], g["a"], g["b"]): (g["score"], g["turns"]) for g in result["games"]
                if g["a"] in HONEST and g["b"] in HONEST}

    with_hostile, alone = honest_games(run.result), honest_games(run.honest)
    assert len([key for key in with_hostile if key[0] == 1]) == 10   # every honest pair
    assert {key for key in with_hostile if key[0] == 1} <= set(alone)
    shared = set(with_hostile) & set(alone)
    for key in shared:
        assert with_hostile[key] == alone[key], key
    assert all(not any(t[4] or t[5] for t in turns) for _score, turns in alone.values())


# -- what the sandbox protects, and what `process` does not ------------------------------------
def test_agents_that_kill_what_they_can_see_reach_nothing(sandboxed_run):
    """A game sees only its own processes (harness/isolation/world.py: it is process 1 of a PID
    namespace of its own): killing its parent, process 1 or everything it may signal
    reaches nothing, not even its own host; the monitor and the other agents go on."""
    for name in ["ParentKiller", "Massacre"]:
        assert sandboxed_run.faults(name) == {}
        assert sandboxed_run.intended(name) == {"CCC"}   # never the D D D of "not in a sandbox"
    crashed = sorted(name for name, agent in sandboxed_run.result["agents"].items()
                     if agent["status"] == "crashed" or sandboxed_run.faults(name).get("crash"))
    # each crashed itself (a protocol breaker's verdict is `invalid`, not a crash); the
    # agent holding more than its memory limit may lose its game's process to the kernel's
    # OOM killer, which picks its victim in the agent's own group (CI saw it once in 3 runs)
    assert sorted(set(crashed) - {"MemoryForker"}) == ["OsExiter"]


def test_a_fork_bomb_is_held_to_the_process_limit(sandboxed_run):
    if not sandbox.support().counts_processes:
        pytest.skip("this sandbox cannot count an agent's processes (root in a user namespace)")
    # forking dozens of processes takes time: on a busy machine a turn may time out
    assert set(sandboxed_run.faults("Forker")) <= {"timeout"}
    moves = sandboxed_run.intended("Forker")
    # turn 1 of a game forks up to the limit (CDC); turn 2 finds no room left (CCC)
    assert "CDC" in moves and moves <= {"CDC", "CCC"}


def test_in_the_sandbox_an_agent_finds_no_submission_and_no_network(sandboxed_run):
    assert sandboxed_run.intended("Snoop") == {"CCC"}
    assert sandboxed_run.intended("Peeker") == {"CCC"}
    assert sandboxed_run.intended("Networker") == {"CCC"}
    assert sandboxed_run.connections == 0


def test_in_the_sandbox_no_file_appears_outside_the_run(sandboxed_run):
    # the write to /tmp succeeded, in the agent's private /tmp: move 2 is D
    assert sandboxed_run.intended("Planter") == {"CDC"}
    assert sandboxed_run.after == sandboxed_run.before
    assert not any(sandboxed_run.markers.values())


AS_ROOT = os.geteuid() == 0


def root_keeps_read() -> bool:
    """Whether a root monitor's `process` hosts keep root's right to read, and so have no
    world of their own: with this suite's venv in a folder other users cannot read."""
    from harness.agents.specs import builtin_spec
    from harness.isolation.sandbox import _keeps_read

    return AS_ROOT and _keeps_read(builtin_spec("cooperate"))


def test_under_process_isolation_agents_read_what_their_user_may_and_reach_no_network(
        process_run):
    """Not protected without the OS sandbox: an agent reads what its user may (a root
    monitor's agents keep root's right to read, harness/isolation/agent_user.py). Under any other
    monitor a game runs in a world of its own (harness/isolation/world.py): no other process in
    sight.
    The seccomp filter allows no socket.
    Which of the two a root monitor is depends on its install: a venv every user can read
    gives each host a user of its own and a world; one in a private folder (/root, or
    mktemp's) keeps root's right to read (harness/isolation/sandbox.py, _keeps_read)."""
    reads_as_root = root_keeps_read()
    # its folder is the monitor's own (mkdtemp's 0700): seen by the monitor's user or root
    assert process_run.intended("Snoop") == ({"DDD"} if reads_as_root or not AS_ROOT
                                             else {"CCC"})
    assert process_run.intended("Peeker") == ({"DDD"} if reads_as_root else {"CCC"})
    assert process_run.intended("Networker") == {"CCC"}
    assert process_run.connections == 0


def test_under_process_isolation_agents_write_only_what_their_own_user_may(process_run):
    """Under a root monitor each agent is a user of its own: the run's folders are root's,
    /tmp is anyone's. Under any other monitor its agents write whatever it may, but /tmp,
    which is each game's own (harness/isolation/world.py), as it is a root monitor's when
    its hosts need no right to read (`root_keeps_read`)."""
    if AS_ROOT:
        assert process_run.markers["planted"] == root_keeps_read()
        # the /tmp marker belongs to the user id of the game that wrote it first: a later
        # game's process, another user, may not write over it (/tmp is sticky)
        assert "CDC" in process_run.intended("Planter") <= {"CDC", "CCC"}
        assert process_run.after == process_run.before
    else:
        assert not process_run.markers["planted"]
        assert process_run.intended("Planter") == {"DDD"}
        assert "agents/Planted.py" in set(process_run.after) - set(process_run.before)


def test_under_process_isolation_an_agent_cannot_kill_the_monitor(tmp_path):
    """A root monitor's agents run as users of their own, which cannot signal it; any other
    monitor's games run in a PID namespace of their own (harness/isolation/world.py), where the
    monitor is out of sight."""
    shutil.copy(HOSTILE / "ParentKiller.py", tmp_path)
    options = dict(SETTINGS, agents=[str(tmp_path / "ParentKiller.py"), "titfortat"],
                   isolation="process", max_rounds=1)
    done = subprocess.run([sys.executable, "-c", RUNNER, str(ROOT), json.dumps(options)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_socket_and_user_probes_hold_in_the_hostile_crowd(run):
    """SocketProber: AF_UNIX only in the sandbox, no socket as a plain process; UidChecker:
    never root (tests/test_agent_user.py has them in every language)."""
    assert run.intended("SocketProber") == ({"CDC"} if run.isolation == "sandbox" else {"CCC"})
    if AS_ROOT or run.isolation == "sandbox":
        assert run.intended("UidChecker") == {"CCC"}


# -- nothing shared between agents, limits per agent ----------------------------------------
# in pairs (a courier and a receiver, a signaller and a listener) or alone: the kernel keyring,
# locks on files every sandbox sees, inotify/dnotify/leases on them, new namespaces, the
# parent's memory, perf events, userfaultfd. The seccomp filter denies them in both modes.
SHARED_WITH_OTHERS = ["KeyringCourier", "KeyringReceiver", "FlockSignaller", "FlockListener",
                      "Watcher", "KernelProber"]


@pytest.mark.parametrize("name", SHARED_WITH_OTHERS)
def test_no_kernel_object_is_shared_between_agents_and_no_other_process_reached(run, name):
    # what they found would be D; a call late past 0.5 s on a loaded machine (seen beside
    # another full suite) plays the default C C C and reached nothing either
    assert set(run.faults(name)) <= {"timeout"}
    assert run.intended(name) == {"CCC"}


def test_memory_is_held_per_agent_not_per_process(run):
    """Six children of 300 MiB under a 1 GiB limit: a cgroup per agent holds them to the
    limit together, or (no cgroup here) the agent may not fork at all."""
    assert run.intended("MemoryForker") == {"CCC"}


def test_in_the_sandbox_no_memory_escapes_the_limits(sandboxed_run):
    """/dev/shm is read-only; memfd and SysV shared memory are denied."""
    assert sandboxed_run.intended("ShmHoarder") == {"CCC"}


def test_under_process_isolation_the_machines_dev_shm_is_writable(process_run):
    """Not protected without the OS sandbox (what lands there is counted in the agent's
    cgroup where there is one); memfd and SysV shared memory are denied all the same. A
    game with a world of its own has its own /dev/shm, too small for the hoard (4 MiB,
    harness/isolation/world.py), as every monitor's but a root one's that keeps its right
    to read (`root_keeps_read`)."""
    has_world = not root_keeps_read()
    assert process_run.intended("ShmHoarder") == ({"CCC"} if has_world else {"DCC"})


def test_nothing_from_an_agent_is_unpickled_or_evaluated(run):
    assert not run.markers["unpickled"]
    assert not run.markers["evaluated"]


MONITOR_SIDE = ["harness/isolation/handles/process.py", "harness/isolation/handles/agent_handle.py",
                "harness/isolation/handles/opening.py", "harness/engine/game.py",
                "harness/engine/rounds.py", "harness/engine/tournament.py",
                "harness/engine/results.py", "harness/engine/replay.py",
                "harness/present/formats.py",
                "harness/isolation/sandbox.py", "harness/isolation/limits.py",
                "harness/isolation/cgroups.py", "harness/isolation/confinement.py",
                "harness/isolation/seccomp.py"]
FORBIDDEN_MODULES = {"pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle"}
FORBIDDEN_BUILTINS = {"eval", "exec", "compile", "__import__"}


@pytest.mark.parametrize("module", MONITOR_SIDE)
def test_the_monitor_side_code_has_no_way_to_unpickle_or_evaluate(module):
    tree = ast.parse((ROOT / module).read_text(), module)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not {alias.name.split(".")[0] for alias in node.names} & FORBIDDEN_MODULES
        elif isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] not in FORBIDDEN_MODULES
        elif isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Name):
                assert function.id not in FORBIDDEN_BUILTINS, f"{module}:{node.lineno}"
            elif isinstance(function, ast.Attribute):
                assert function.attr != "literal_eval", f"{module}:{node.lineno}"
