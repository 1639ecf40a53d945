"""`--cluster ADDRESS`: tournaments, replicates and experiments on a real Dask cluster
(a LocalCluster of two worker processes, started here on ports the OS chooses) give
exactly the local result; a worker killed mid-run changes nothing; a worker that lacks
what the run needs refuses it, naming itself; what workers answer is checked."""
from __future__ import annotations

import functools
import json
import os
import signal
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from harness.core.errors import HarnessError

from conftest import AGENTS, ROOT, run_cli

pytestmark = pytest.mark.slow  # a real Dask LocalCluster per test: seconds of CPU each

distributed = pytest.importorskip("distributed") if os.environ.get("CI", "").lower() != \
    "true" else __import__("distributed")   # CI installs the `test` extra: never a skip

STUDENTS = ROOT / "student_agents"
MIXED = [STUDENTS / "AdamsBrown.py", STUDENTS / "GarciaHoffman.hy",
         STUDENTS / "BrownChen.lisp", "titfortat", "random"]


def local_cluster(**worker_options):
    return distributed.LocalCluster(n_workers=worker_options.pop("n_workers", 2),
                                    processes=True, threads_per_worker=1, scheduler_port=0,
                                    dashboard_address=":0", worker_dashboard_address=None,
                                    **worker_options)


@pytest.fixture(scope="module")
def cluster():
    with local_cluster() as running:
        yield running


def tournament(agents, seed, cluster=None, isolation="process", observer=None, **options):
    from harness.api import agent_specs
    from harness.core.rules import GameLength, GameParams
    from harness.engine.tournament import Settings, run_tournament
    from harness.isolation.handles.opening import Isolation
    from harness.run.round_runner import round_runner

    settings = Settings(game=GameParams(), length=GameLength(5, 12),
                        isolation=Isolation(isolation, 30.0), cluster=cluster, **options)
    return run_tournament(agent_specs([str(a) for a in agents], []), seed, settings,
                          observer, runner_for=round_runner)


def everything(result) -> dict:
    """The run's JSON and every move of every game."""
    from harness.present.formats import result_dict

    return {"json": result_dict(result),
            "moves": [(g.round, g.a, g.b, g.seed, g.intended_a, g.played_a, g.intended_b,
                       g.played_b, g.running_a, g.running_b, sorted(g.fault_at.items()),
                       g.warnings) for g in result.games],
            "statuses": [(e.name, e.status, e.message) for e in result.entrants]}


# -- the same result -------------------------------------------------------------------------
def test_python_hy_and_lisp_in_the_sandbox_play_as_locally(cluster, sbcl, bwrap):
    import harness

    local = tournament(MIXED, 7, isolation="sandbox")
    remote = harness.monitor((0.25, 0.1), (5, 12), [str(a) for a in MIXED], seed=7,
                             timeout=30.0, cluster=cluster.scheduler_address).result
    assert len(remote.rounds) >= 2 and {e.spec.language for e in remote.entrants} >= \
        {"python", "hy", "lisp", "builtin"}
    assert everything(remote) == everything(local)


def test_bundles_in_three_languages_travel_and_play_as_locally(cluster, sbcl, bwrap,
                                                               tmp_path):
    """Bundles (a folder, a zip) travel to the workers as their files and play there as
    locally: the same games, the same digests recorded, every helper and data file read."""
    import harness

    from test_bundles import hy_bundle, lisp_bundle, python_bundle, zipped

    agents = [python_bundle(tmp_path), zipped(hy_bundle(tmp_path / "hy"),
                                              tmp_path / "ChenDiaz.zip"),
              lisp_bundle(tmp_path), "titfortat"]
    local = tournament(agents, 3, isolation="sandbox")
    remote = harness.monitor((0.25, 0.1), (5, 12), [str(a) for a in agents], seed=3,
                             timeout=30.0, cluster=cluster.scheduler_address).result
    assert [e.status for e in remote.entrants] == ["ok"] * 4
    assert everything(remote) == everything(local)
    assert [e.spec.sha256() for e in remote.entrants] == [e.spec.sha256()
                                                           for e in local.entrants]


def test_replicates_are_the_local_replicates(cluster):
    from harness.api import agent_specs
    from harness.run.replicates import run_replicates

    specs = agent_specs(["titfortat", "grudger", "random", "pavlov",
                         str(AGENTS / "core" / "Gambler.py")], [])
    from harness.core.rules import GameLength, GameParams
    from harness.engine.tournament import Settings
    from harness.isolation.handles.opening import Isolation

    settings = Settings(game=GameParams(), length=GameLength(5, 12),
                        isolation=Isolation("process", 30.0))
    local = run_replicates(specs, 11, settings, 3, jobs=1)
    remote = run_replicates(specs, 11, replace(settings, cluster=cluster.scheduler_address),
                            3)
    assert remote.as_dict() == local.as_dict() and remote.runs == local.runs


def test_an_experiment_is_the_local_experiment(cluster):
    from harness.run.experiment import plan
    from harness.run.experiment.run import play

    experiment = plan.load(AGENTS / "experiments" / "minimal.json", "none",  # built-ins
                           {"timeout": 30})   # the file's own
    local = play(experiment, 3, jobs=1)
    remote = play(experiment, 3, cluster=cluster.scheduler_address)
    assert len(remote) == 8 and remote == local


def test_an_experiment_tells_which_types_did_not_load_and_why_as_locally(cluster, tmp_path):
    from harness.agents import bundles
    from harness.run.experiment import plan
    from harness.run.experiment.run import play

    (tmp_path / "BrokenAgent.py").write_text("def BrokenAgent(hist, score)\n")
    big = tmp_path / "BigAgent"   # a bundle the monitor refuses: it never travels
    big.mkdir()
    (big / "BigAgent.py").write_text("def BigAgent(hist, score):\n    return 'CCC'\n")
    (big / "weights.bin").write_bytes(b"\0" * (2 << 20))
    (tmp_path / "exp.json").write_text(json.dumps({
        "types": [{"id": "broken", "agent": "BrokenAgent.py", "count": 2},
                  {"id": "big", "agent": "BigAgent"},
                  {"id": "tft", "agent": "titfortat"}, {"id": "alld", "agent": "defect"}],
        "replicates": 2, "parameters": {"length": [3, 3]}}))
    bundles.use_max_mib(1)
    try:
        experiment = plan.load(tmp_path / "exp.json", "process", {"timeout": 30})
        local = play(experiment, 5, jobs=1)
        remote = play(experiment, 5, cluster=cluster.scheduler_address)
    finally:
        bundles.use_max_mib(None)
    assert remote == local
    for here, there in zip(local, remote, strict=True):
        assert there.load_errors == here.load_errors
        assert list(there.load_errors) == ["broken", "big"]
        # the file as the monitor names it, not the worker's copy of it
        assert there.load_errors["broken"].startswith(f"{tmp_path / 'BrokenAgent.py'}:1: ")
        assert "more than 1 MiB" in there.load_errors["big"]


def test_the_command_line_records_prints_and_resumes_as_a_local_run_does(cluster, tmp_path):
    args = ["tournament", "titfortat", "grudger", "random", AGENTS / "core" / "Gambler.py",
            "--seed", "5", "--isolation", "process", "--timeout", "30", "--length", "5", "9",
            "--replicates", "3", "--format", "json"]
    status, out, err = run_cli(*args, "--db", tmp_path / "local.sqlite")
    assert status == 0, err
    status, out_cluster, err = run_cli(*args, "--db", tmp_path / "cluster.sqlite",
                                       "--cluster", cluster.scheduler_address)
    assert status == 0, err
    assert json.loads(out_cluster) == json.loads(out)
    for query in ("SELECT * FROM game", "SELECT number, game_length FROM round",
                  "SELECT * FROM replicate", "SELECT * FROM fault", "SELECT * FROM move",
                  "SELECT name, status, message FROM agent"):
        rows = [sqlite3.connect(tmp_path / f"{name}.sqlite").execute(
            f"{query} ORDER BY 1, 2").fetchall() for name in ("local", "cluster")]
        assert rows[0] == rows[1] and rows[0] or query == "SELECT * FROM fault", query
    # a run stopped after round 1, before its replicates, finished on the cluster
    from test_records_resume import cut_back

    stopped = tmp_path / "stopped.sqlite"
    stopped.write_bytes((tmp_path / "local.sqlite").read_bytes())
    cut_back(stopped, 1)
    with sqlite3.connect(stopped) as connection:
        connection.execute("DELETE FROM replicate")
    status, resumed, err = run_cli("resume", stopped, "--isolation", "process", "--timeout",
                                   "30", "--format", "json", "--cluster",
                                   cluster.scheduler_address)
    assert status == 0, err
    assert json.loads(resumed) == json.loads(out)


# -- workers that die or cannot do the work --------------------------------------------------
def test_a_worker_killed_mid_round_changes_nothing():
    from harness.engine.tournament import Observer

    agents = ["titfortat", "grudger", "random", "pavlov", "cooperate", "defect",
              "titfortwotats", AGENTS / "core" / "Gambler.py", AGENTS / "core" / "Counter.py"]
    killed = []

    class KillOnFirstGame(Observer):
        def game_finished(self, game):
            if killed:
                return
            busy = [where for where, keys in watcher.processing().items() if keys]
            if busy:   # a worker with a task under way: kill its process
                pid = watcher.run(os.getpid, workers=busy[:1])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed.append(busy[0])

    # a cluster of its own: whether and when the nanny starts the killed worker again is
    # no concern of the other tests
    with local_cluster() as cluster, distributed.Client(
            cluster.scheduler_address, set_as_default=False) as watcher:
        remote = tournament(agents, 13, cluster.scheduler_address,
                            observer=KillOnFirstGame())
    assert killed, "no worker had a task under way to kill"
    assert everything(remote) == everything(tournament(agents, 13))


@pytest.fixture(scope="module")
def without_sbcl(tmp_path_factory):
    """A worker whose PATH has no sbcl (the harness finds SBCL on the PATH)."""
    empty = tmp_path_factory.mktemp("path-without-sbcl")
    with local_cluster(n_workers=1, env={"PATH": str(empty)}) as running:
        yield running


def test_a_worker_without_sbcl_refuses_lisp_agents_naming_itself(without_sbcl, sbcl):
    worker = next(iter(without_sbcl.scheduler_info["workers"]))
    with pytest.raises(HarnessError) as refused:
        tournament(["titfortat", STUDENTS / "BrownChen.lisp"], 1,
                   without_sbcl.scheduler_address)
    message = str(refused.value)
    assert worker in message and "SBCL" in message and "\n" not in message
    # what it can do safely, it does
    assert tournament(["titfortat", "random"], 1, without_sbcl.scheduler_address).standings


def test_the_command_line_says_the_refusal_in_one_line(without_sbcl, sbcl):
    status, out, err = run_cli("tournament", "titfortat", STUDENTS / "BrownChen.lisp",
                               "--isolation", "process", "--seed", "1",
                               "--cluster", without_sbcl.scheduler_address)
    assert status == 2 and "Traceback" not in err
    assert any("refuses" in line and "SBCL" in line for line in err.splitlines())


@pytest.fixture(scope="module")
def other_sbcl(tmp_path_factory):
    """A worker whose PATH finds first an sbcl that says it is another version (and is
    the real one otherwise): a machine where SBCL was upgraded, say."""
    import shutil

    real = shutil.which("sbcl") or "sbcl"
    folder = tmp_path_factory.mktemp("path-other-sbcl")
    script = folder / "sbcl"
    script.write_text(f'#!/bin/sh\n[ "$1" = --version ] && echo "SBCL 0.0.1-elsewhere" && '
                      f'exit 0\nexec {real} "$@"\n')
    script.chmod(0o755)
    with local_cluster(n_workers=1, env={"PATH": f"{folder}{os.pathsep}"
                                         f"{os.environ.get('PATH', '')}"}) as running:
        yield running


def test_a_worker_with_another_sbcl_refuses_lisp_agents(other_sbcl, sbcl):
    """The runtime versions are part of what a worker must share with the monitor: one
    whose SBCL is another version plays no Lisp agent, and says which versions differ."""
    from harness.agents.lang import LANGUAGES

    worker = next(iter(other_sbcl.scheduler_info["workers"]))
    with pytest.raises(HarnessError) as refused:
        tournament(["titfortat", STUDENTS / "BrownChen.lisp"], 1, other_sbcl.scheduler_address)
    message = str(refused.value)
    assert worker in message and "SBCL 0.0.1-elsewhere" in message and "\n" not in message
    assert LANGUAGES["lisp"].runtime_version() in message
    # Python and Hy agents need no SBCL: their runtimes are the monitor's
    assert tournament(["titfortat", STUDENTS / "GarciaHoffman.hy"], 1,
                      other_sbcl.scheduler_address).standings


def test_an_unreachable_scheduler_is_one_line(monkeypatch):
    import socket

    monkeypatch.setattr("harness.run.cluster.connection.CONNECT_SECONDS", 2)
    with socket.socket() as unused:   # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(HarnessError, match="cannot reach the scheduler"):
        tournament(["titfortat", "random"], 1, f"tcp://127.0.0.1:{port}")


# -- what travels, checked (no cluster needed) -----------------------------------------------
def test_an_agent_file_that_arrives_changed_is_refused(tmp_path):
    from harness.agents.specs import file_spec
    from harness.run.cluster.shipment import DamagedParcel, Shipment, pack, unpack

    shipment = pack([file_spec(AGENTS / "core" / "Gambler.py")])
    (spec,) = unpack(shipment)
    assert Path(spec.source).read_bytes() == (AGENTS / "core" / "Gambler.py").read_bytes()
    assert spec.entry == "Gambler"
    digest = shipment.agents[0].sha256
    damaged = Shipment(shipment.agents, {digest: shipment.files[digest] + b"\n# changed"})
    with pytest.raises(DamagedParcel):
        unpack(damaged)


def test_a_python_function_cannot_travel():
    from harness.agents.specs import callable_spec
    from harness.run.cluster.shipment import pack

    with pytest.raises(HarnessError, match="cannot run on a cluster"):
        pack([callable_spec(lambda hist, score: "CCC", "Inline")])


@functools.lru_cache(maxsize=1)
def _a_game():
    """(job, params, game): one real game between two built-ins."""
    from harness.agents.specs import builtin_spec
    from harness.core.rules import GameParams
    from harness.engine.game import play_game
    from harness.engine.rounds import round_robin
    from harness.isolation.handles.opening import Isolation, open_handle

    params = GameParams()
    job = round_robin(["random", "titfortat"], 1, 6, 99)[0]
    handles = [open_handle(builtin_spec(name), Isolation("none")) for name in (job.a, job.b)]
    return job, params, play_game(*handles, job.length, job.seed, params, job.round)


def test_a_game_crosses_as_plain_data_and_is_played_again_the_same():
    from harness.run.cluster import wire

    job, params, game = _a_game()
    again = wire.game_in(wire.loads(wire.dumps(wire.game_out(game))), job, params)
    assert again == game


@pytest.mark.parametrize("change", [
    lambda g: g.update(score=[g["score"][0] + 1, g["score"][1]]),
    lambda g: g.update(a="someone"),
    lambda g: g.update(seed=g["seed"] + 1),
    lambda g: g["intended_a"].append("CCC"),
    lambda g: g["intended_b"].__setitem__(0, "CCX"),
    lambda g: g.update(faults=[["a", 99, "crash", "x"]]),
    lambda g: g.update(faults=[["a", 0, "mystery", "x"]]),
    lambda g: g.update(warnings={"c": "x"}),
    lambda g: g.pop("warnings"),
])
def test_a_game_that_is_not_the_one_asked_for_is_refused(change):
    from harness.run.cluster import wire

    job, params, game = _a_game()
    data = wire.game_out(game)
    change(data)
    with pytest.raises(wire.BadAnswer):
        wire.game_in(data, job, params)


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                       lambda inner: st.lists(inner, max_size=4) |
                       st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@hsettings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["round", "a", "b", "length", "seed", "score",
                                        "intended_a", "intended_b", "faults", "warnings"]),
                       JSONISH), st.lists(JSONISH, max_size=3), JSONISH)
def test_any_answer_is_a_game_or_refused(fields, standings, notes):
    from harness.run.cluster import wire

    job, params, game = _a_game()
    data = {**wire.game_out(game), **fields}
    try:
        assert wire.game_in(data, job, params).a == job.a
    except wire.BadAnswer:
        pass
    for reader in (lambda: wire.standings_in(standings, {"random", "titfortat"}),
                   lambda: wire.outputs_in(notes, {"random", "titfortat"})):
        try:
            reader()
        except wire.BadAnswer:
            pass


@hsettings(max_examples=100, deadline=None)
@given(st.sets(st.text("abcdefgh", min_size=1, max_size=3), min_size=2, max_size=30),
       st.integers(1, 40))
def test_chunks_split_a_round_exactly_among_few_agents_each(names, pieces):
    from harness.engine.rounds import round_robin
    from harness.run.cluster.chunked_rounds import chunks

    jobs = round_robin(names, 1, 10, 1)
    parts = chunks(jobs, pieces)
    assert sorted(i for part in parts for i in part) == list(range(len(jobs)))
    assert all(part for part in parts)
    if len(parts) > 1:   # each chunk among two blocks of agents, never all of them
        largest = max(len({n for i in part for n in (jobs[i].a, jobs[i].b)}) for part in parts)
        assert largest <= 2 * -(-len(names) // 2)
