"""The sandbox and the resource limits, seen from inside: real bubblewrap, real processes.

Each test runs a small Python program in the command line the sandbox builds for an agent
and checks what that program could see or do.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from harness.agents.lang import LANGUAGES
from harness.agents.lang.python_process import host_environment, python_host_command
from harness.agents.specs import builtin_spec, file_spec
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation import limits, sandbox
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import ROOT, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

MIB = 1024 * 1024


def inside(program: str, spec=None, memory: int = 1024 * MIB, env=None):
    """Run `program` with the host's interpreter inside the sandbox built for `spec`."""
    spec = spec or builtin_spec("cooperate")
    start = sandbox.launcher(spec, Isolation("sandbox", 1.0, memory))
    launch = start([sys.executable, "-c", textwrap.dedent(program)],
                   env or host_environment("token"))
    try:
        return subprocess.run(launch.argv, env=launch.env, capture_output=True, text=True,
                              timeout=120, **launch.popen_options())
    finally:
        launch.close()


def inside_json(program: str, **options):
    done = inside(program, **options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def submissions(tmp_path):
    """A folder of two submissions; the first is readable by its owner only."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    mine = folder / "MeAgent.py"
    mine.write_text("def MeAgent(hist, score):\n    return ['C', 'C', 'C']\n")
    mine.chmod(0o600)
    (folder / "OtherAgent.py").write_text("SECRET = 'strategy'\n")
    return folder


def test_an_agent_sees_its_own_file_but_not_the_submissions_beside_it(sandboxed, submissions):
    mine = submissions / "MeAgent.py"
    seen = inside_json(f"""
        import json, os
        print(json.dumps({{"listing": os.listdir({str(submissions)!r}),
                          "source": open({str(mine)!r}).read(),
                          "other": os.path.exists({str(submissions / "OtherAgent.py")!r})}}))
    """, spec=file_spec(mine))
    assert seen == {"listing": ["MeAgent.py"], "source": mine.read_text(), "other": False}


def test_only_the_private_tmp_is_writable_and_it_starts_empty(sandboxed, submissions, tmp_path):
    mine = submissions / "MeAgent.py"
    marker = f"/tmp/pdharness-sandbox-test-{os.getpid()}"
    before = sorted(p.name for p in tmp_path.rglob("*"))
    targets = [str(mine), str(submissions / "Planted.py"), str(tmp_path / "planted"),
               str(ROOT / "harness" / "planted.py"), "/usr/planted", "/planted",
               str(sandbox._cache_dir()) + "/planted", os.getcwd() + "/planted"]
    program = f"""
        import json, os
        written = []
        for target in {targets!r}:
            try:
                with open(target, "a") as out:
                    out.write("x")
                written.append(target)
            except OSError:
                pass
        seen = {{"written": written, "tmp": sorted(os.listdir("/tmp")),
                "marker": os.path.exists({marker!r})}}
        open({marker!r}, "w").write("x")
        print(json.dumps(seen))
    """
    first = inside_json(program, spec=file_spec(mine))
    second = inside_json(program, spec=file_spec(mine))
    # /tmp holds only the folders on the way to what is bound there (the agent's own file,
    # the cache, a checkout or venv, when they live under /tmp, as in this test), never the
    # last run's files
    bound = sandbox._Views.of(file_spec(mine)).roots + [str(mine), os.getcwd()]
    on_the_way = sorted({path.split("/")[2] for path in bound if path.startswith("/tmp/")})
    assert first == second == {"written": [], "tmp": on_the_way, "marker": False}
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert not os.path.exists(marker)


def test_read_only_views_cannot_be_remounted_writable(sandboxed):
    seen = inside_json("""
        import ctypes, json, os
        libc = ctypes.CDLL(None, use_errno=True)
        MS_REMOUNT, MS_BIND = 32, 4096
        status = libc.mount(b"none", b"/usr", None, MS_REMOUNT | MS_BIND, None)
        error = ctypes.get_errno()
        print(json.dumps({"status": status, "error": error}))
    """)
    assert seen["status"] == -1
    assert seen["error"] in (1, 13)  # EPERM, EACCES


def test_there_is_no_network(sandboxed):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        seen = inside_json(f"""
            import json, socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
                reached = True
            except OSError:
                reached = False
            try:   # netlink, and an AF_INET socket, are refused by the seccomp filter
                names = [name for _index, name in socket.if_nameindex()]
            except OSError:
                names = None
            print(json.dumps({{"reached": reached, "interfaces": names}}))
        """)
        assert seen == {"reached": False, "interfaces": None}
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()


def test_an_agent_sees_and_signals_only_its_own_processes(sandboxed):
    monitor = os.getpid()
    seen = inside_json(f"""
        import json, os, signal
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        try:
            os.kill({monitor}, 0)
            monitor_visible = True
        except OSError:
            monitor_visible = False
        for pid in pids:
            if pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        print(json.dumps({{"pids": pids, "monitor_visible": monitor_visible}}))
    """)
    assert seen["monitor_visible"] is False
    assert max(seen["pids"]) <= 3           # bwrap's init and the program: nothing else
    os.kill(monitor, 0)                     # and the test process is still here


def test_no_capabilities_no_new_privileges_and_not_root_where_it_can_drop_root(sandboxed):
    seen = inside_json("""
        import json, os
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(json.dumps({"uid": os.getuid(), "euid": os.geteuid(), "groups": os.getgroups(),
                          "caps": int(status["CapEff"].strip(), 16),
                          "no_new_privs": status["NoNewPrivs"].strip()}))
    """)
    assert seen["caps"] == 0
    assert seen["no_new_privs"] == "1"
    if sandboxed.flavor == sandbox.DEDICATED_USER:
        assert seen["uid"] == seen["euid"] >= sandbox.UID_BASE
        assert seen["groups"] == []


def test_the_environment_is_minimal(sandboxed, monkeypatch):
    monkeypatch.setenv("PDH_TEST_SECRET", "do not leak")
    seen = inside_json("""
        import json, os
        print(json.dumps(dict(os.environ)))
    """)
    assert "PDH_TEST_SECRET" not in seen
    assert set(seen) <= {"HOME", "LANG", "PATH", "PDHARNESS_CACHE", "PDH_TOKEN", "PWD",
                         "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONPATH", "TMPDIR",
                         "SBCL_HOME", "PDH_GAME_FILTER", "PDH_WORLD_REQUIRED", "PDH_WORLD_KEEP",
                         "PDH_SOURCE_FD", "PDH_SITE_FOLDERS"}  # site folders, for -S hosts
    assert seen["HOME"] == seen["TMPDIR"] == "/tmp"


def test_memory_beyond_the_limit_cannot_be_had(sandboxed):
    program = """
        import json
        def get(size):
            try:
                return len(bytearray(size)) == size
            except MemoryError:
                return False
        print(json.dumps([get(64 << 20), get(400 << 20), get(40 << 30)]))
    """
    assert inside_json(program, memory=256 * MIB) == [True, False, False]
    assert inside_json(program, memory=1024 * MIB) == [True, True, False]


def test_a_file_cannot_grow_past_the_size_limit(sandboxed):
    seen = inside_json(f"""
        import errno, json
        try:
            with open("/tmp/big", "wb") as out:
                out.write(b"x" * {limits.DEFAULT_FILE_SIZE + MIB})
            error = None
        except OSError as failure:
            error = failure.errno
        print(json.dumps(error))
    """)
    assert seen == 27  # EFBIG: Python ignores SIGXFSZ, so the write fails instead


def test_the_number_of_processes_is_limited(sandboxed):
    if not sandboxed.counts_processes:
        pytest.skip("this sandbox cannot count an agent's processes apart (see docs/security.md)")
    seen = inside_json("""
        import json, os, time
        started = 0
        try:
            while started < 500:
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
                started += 1
        except OSError:
            pass
        print(json.dumps(started))
    """)
    assert seen < limits.DEFAULT_PROCESSES


def test_cpu_time_is_limited():
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                            preexec_fn=limits.preexec(limits.Limits(cpu_seconds=1)))
    assert spin.wait(timeout=60) in (-signal.SIGXCPU, -signal.SIGKILL)


def test_limits_are_set_in_the_child_and_core_dumps_are_off():
    chosen = limits.Limits(memory=512 * MIB, cpu_seconds=77, file_size=3 * MIB, open_files=99)
    done = subprocess.run(
        [sys.executable, "-c", "import resource as r, json; print(json.dumps([r.getrlimit(x) "
         "for x in (r.RLIMIT_AS, r.RLIMIT_CPU, r.RLIMIT_FSIZE, r.RLIMIT_NOFILE, "
         "r.RLIMIT_CORE)]))"],
        capture_output=True, text=True, preexec_fn=limits.preexec(chosen), check=True)
    assert json.loads(done.stdout) == [[512 * MIB] * 2, [77, 82], [3 * MIB] * 2, [99, 99],
                                       [0, 0]]


def test_limits_never_ask_for_more_than_the_monitor_may_have():
    program = textwrap.dedent("""
        import json, resource, sys
        sys.path.insert(0, sys.argv[1])
        resource.setrlimit(resource.RLIMIT_NOFILE, (50, 50))
        from harness.isolation.limits import Limits
        print(json.dumps([s for s in Limits(open_files=256).settings()
                          if s[0] == resource.RLIMIT_NOFILE]))
    """)
    done = subprocess.run([sys.executable, "-c", program, str(ROOT)], capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout) == [[resource.RLIMIT_NOFILE, 50, 50]]


def test_sbcl_gets_a_heap_that_fits_under_the_address_space_limit(sbcl):
    from lisp_bridge import sbcl

    heap = sbcl.heap_mib(1 << 30)
    assert 512 <= heap <= 1024 - 200
    assert sbcl.heap_mib(None) is None
    # runtime options come first on SBCL's command line: right after the program
    assert sbcl.base_command(1 << 30)[1:3] == ["--dynamic-space-size", f"{heap}MB"]
    assert "--dynamic-space-size" not in sbcl.base_command(None)
    agent = Path(__file__).parent / "agents" / "lisp" / "LispCounter.lisp"
    argv = LANGUAGES["lisp"].host_command(str(agent), "LispCounter", 1 << 30)
    assert argv[1:3] == ["--dynamic-space-size", f"{heap}MB"]


@pytest.mark.parametrize("memory_mib", [400, 1024, 4096])
def test_sbcl_starts_under_the_address_space_limit(sbcl, memory_mib):
    from lisp_bridge.sbcl import base_command, heap_mib

    memory = memory_mib * MIB
    argv = base_command(memory) + [
        "--non-interactive", "--eval", "(progn (princ (sb-ext:dynamic-space-size)) (terpri))"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          preexec_fn=limits.preexec(limits.Limits(memory=memory)))
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) == heap_mib(memory) * MIB


def play_three_turns(handle_a, handle_b):
    params = GameParams(flip=FlipParams(0.0, 0.0))
    return play_game(handle_a, handle_b, 3, 1, params)


@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_hosts_opened_on_a_thread_that_ended_stay_alive(request, mode):
    """The kernel's parent-death signal follows the thread that started a process."""
    if mode == "sandbox":
        request.getfixturevalue("sandboxed")
    handles = []
    opener = threading.Thread(target=lambda: handles.extend(
        open_handle(builtin_spec(name), Isolation(mode, 5.0)) for name in ("defect", "grudger")))
    opener.start()
    opener.join()
    try:
        record = play_three_turns(*handles)
        assert record.fault_count("a") == record.fault_count("b") == 0
        assert record.score == (5 * 3 + 1 * 6, 0 * 3 + 1 * 6)
    finally:
        for handle in handles:
            handle.close()


def test_an_agent_given_by_a_relative_path_plays_in_the_sandbox(sandboxed, submissions,
                                                                monkeypatch):
    monkeypatch.chdir(submissions.parent)
    isolation = Isolation("sandbox", 5.0)
    mine = open_handle(file_spec(Path("submissions/MeAgent.py")), isolation)
    other = open_handle(builtin_spec("defect"), isolation)
    try:
        record = play_three_turns(mine, other)
        assert [turn.intended_a for turn in record.turns] == ["CCC"] * 3
        assert record.fault_count("a") == 0
    finally:
        mine.close()
        other.close()


def test_an_unreadable_agent_file_is_a_load_error_not_a_crash(sandboxed, tmp_path):
    from harness.core.errors import LoadError

    path = tmp_path / "GoneAgent.py"
    path.write_text("def GoneAgent(hist, score):\n    return 'CCC'\n")
    spec = file_spec(path)
    path.unlink()
    with pytest.raises(LoadError, match="GoneAgent.py: cannot read"):
        open_handle(spec, Isolation("sandbox", 1.0))


def test_without_bubblewrap_one_warning_says_what_is_not_protected(tmp_path):
    """PATH without bwrap: the run goes on as `process`, and says so once."""
    env = dict(os.environ, PATH=str(tmp_path), PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "harness", "tournament", "titfortat", "grudger", "defect",
         "--length", "3", "3", "--seed", "4", "--jobs", "2", "--format", "json"],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "no sandbox: bubblewrap is not installed" in warnings[0]
    if os.geteuid() == 0:   # agents under user ids of their own (harness/isolation/agent_user.py)
        assert "user id of its own" in warnings[0] and "whatever root can" in warnings[0]
    else:
        assert "read and write whatever this user can" in warnings[0]
        assert "monitor" in warnings[0]
    result = json.loads(done.stdout)
    assert all(agent["status"] == "ok" for agent in result["agents"])


def test_asking_for_process_isolation_gives_no_warning():
    status, _out, err = run_cli("tournament", "titfortat", "defect", "--isolation", "process",
                                "--length", "2", "2", "--seed", "1")
    assert status == 0
    assert "warning" not in err


def test_a_host_near_its_cpu_limit_from_honest_work_is_retired_between_games(tmp_path):
    """RLIMIT_CPU counts a process's whole life: an honest agent that thinks hard on every
    call would meet it in a long tournament. The handle retires a host whose calls used half
    of it, at a game boundary, so the limit only ever kills CPU burnt outside the calls."""
    from harness.isolation.handles.process import ProcessHandle
    from harness.isolation.sandbox import Launch

    path = tmp_path / "Thinker.py"
    path.write_text(textwrap.dedent("""
        import time

        def Thinker(hist, score):
            end = time.process_time() + 0.3
            while time.process_time() < end:
                pass
            return ["C", "C", "C"]
    """))
    tight = limits.Limits(cpu_seconds=1)

    def start(argv, env):
        return Launch(argv, env, limits.preexec(tight), cpu_seconds=tight.cpu_seconds)

    argv = python_host_command("python", str(path), "Thinker")
    thinker = ProcessHandle("Thinker", argv, host_environment(""), 5.0, wrap=start)
    other = open_handle(builtin_spec("titfortat"), Isolation("process", 5.0))
    try:
        params = GameParams(flip=FlipParams(0.0, 0.0))
        records = [play_game(thinker, other, 2, seed, params) for seed in range(4)]
        assert [record.fault_count("a") for record in records] == [0, 0, 0, 0]
    finally:
        thinker.close()
        other.close()


def test_an_agent_inside_a_folder_the_sandbox_shows_still_sees_only_its_own_file(sandboxed):
    """Were the submissions inside a folder bound for the host (an installed copy of the
    bundled agents in site-packages, say), that folder is covered by an empty one."""
    folder = Path(sandbox._cache_dir()) / "inside-a-bound-folder"
    folder.mkdir(exist_ok=True)
    mine = folder / "InsideAgent.py"
    mine.write_text("def InsideAgent(hist, score):\n    return ['C', 'C', 'C']\n")
    (folder / "NeighbourAgent.py").write_text("SECRET = 1\n")
    seen = inside_json(f"""
        import json, os
        listing = os.listdir({str(folder)!r})
        try:
            open({str(folder / "Planted.py")!r}, "w")
            planted = True
        except OSError:
            planted = False
        print(json.dumps({{"listing": listing, "source": open({str(mine)!r}).read(),
                          "planted": planted}}))
    """, spec=file_spec(mine))
    assert seen == {"listing": ["InsideAgent.py"], "source": mine.read_text(),
                    "planted": False}
