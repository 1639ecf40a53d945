"""Limits per agent, not per process, and nothing shared between sandboxes: the seccomp
filter on the real kernel, the cgroups on the real hierarchy, both seen from inside the real
sandbox and under `process` isolation.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from harness.agents.lang.python_process import host_environment
from harness.agents.specs import builtin_spec
from harness.isolation import cgroups, seccomp
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import ROOT
from test_sandbox import MIB, inside_json

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

# -- the filter, on the kernel of this machine --------------------------------------------------
# what a probe, once filtered, calls with: a system call's errno (0: allowed), an action's
CALLS = """
libc = ctypes.CDLL(None, use_errno=True)

def call(number, *args):
    return 0 if libc.syscall(number, *args) >= 0 else ctypes.get_errno()

def tried(action):
    try:
        action()
        return 0
    except OSError as error:
        return error.errno
"""
PROBE = r"""
import ctypes, errno, fcntl, json, os, sys, threading
sys.path.insert(0, sys.argv[1])
from harness.isolation import seccomp
seccomp.installer(seccomp.program(no_fork=sys.argv[2] == "no-fork"))()
""" + CALLS + r"""
shared = open("/usr/bin/env", "rb")
threads = []
thread = threading.Thread(target=lambda: threads.append(1))
thread.start(); thread.join()

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)

print(json.dumps({
    "keyctl": call(250, 0, -3, 0), "add_key": call(248, b"user", b"k", b"v", 1, -3),
    "flock": tried(lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)),
    "posix_lock": tried(lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)),
    "ofd_lock": tried(lambda: fcntl.fcntl(shared, 37, bytes(32))),
    "lease": tried(lambda: fcntl.fcntl(shared, 1024, fcntl.F_RDLCK)),
    "getfl": tried(lambda: fcntl.fcntl(shared, fcntl.F_GETFL)),
    "inotify": call(294, 0), "memfd": call(319, b"x", 0), "shmget": call(29, 0, 4096, 0o1600),
    "unshare_user": call(272, 0x10000000), "ptrace": call(101, 16, os.getppid(), 0, 0),
    "perf": call(298, bytes(128), 0, -1, -1, 0), "userfaultfd": call(323, 0),
    "x32_getpid": call(0x40000000 | 39), "getpid": call(39),
    "thread": threads == [1], "fork": tried(fork),
}))
"""


def filtered(no_fork: bool) -> dict:
    if seccomp.architecture() != "x86_64":
        pytest.skip("the probe uses x86_64 system call numbers")
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT),
                           "no-fork" if no_fork else "base"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_base_filter_denies_what_sandboxes_share_and_nothing_an_agent_needs():
    seen = filtered(no_fork=False)
    eperm = {name for name, value in seen.items() if value == 1 and name != "thread"}
    assert eperm == {"keyctl", "add_key", "flock", "posix_lock", "ofd_lock", "lease", "inotify",
                     "memfd", "shmget", "unshare_user", "ptrace", "perf", "userfaultfd"}
    assert seen["x32_getpid"] == 38          # ENOSYS: another ABI's numbers get nothing
    assert seen["getpid"] == seen["getfl"] == seen["fork"] == 0 and seen["thread"] is True


def test_the_no_fork_filter_denies_processes_but_not_threads():
    seen = filtered(no_fork=True)
    assert seen["fork"] == 1 and seen["thread"] is True and seen["keyctl"] == 1


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHITECTURES))
@pytest.mark.parametrize("no_fork", [False, True])
def test_every_architecture_gets_a_whole_program_that_checks_the_architecture_first(machine,
                                                                                   no_fork):
    code = seccomp.program(no_fork=no_fork, machine=machine)
    assert len(code) % 8 == 0 and 0 < len(code) // 8 < 4096
    first_opcode, _t, _f, offset = __import__("struct").unpack_from("=HBBI", code)
    assert (first_opcode, offset) == (0x20, 4)   # load seccomp_data.arch


def test_a_host_given_a_game_filter_can_fork_itself_its_children_cannot():
    """The zygote takes the game filter (and removes it from the environment) and may still
    fork; the child that calls the prepared function may not, where it denies forking."""
    program = textwrap.dedent("""
        import json, os, sys
        sys.path.insert(0, sys.argv[1])
        from harness.isolation import seccomp

        def forks():
            try:
                pid = os.fork()
            except OSError:
                return False
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            return True

        deny = seccomp.game_filter()
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            deny()
            os.write(write, b"1" if forks() else b"0")
            os._exit(0)
        os.waitpid(child, 0)
        print(json.dumps([forks(), os.read(read, 1) == b"1",
                          seccomp.GAME_FILTER in os.environ]))
    """)
    env = dict(os.environ, **{seccomp.GAME_FILTER: seccomp.program(no_fork=True).hex()})
    done = subprocess.run([sys.executable, "-c", program, str(ROOT)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == [True, False, False]


# -- what sandboxes could share, seen from inside ---------------------------------------------
def test_in_the_sandbox_nothing_machine_wide_is_within_reach(sandboxed):
    """No /sys, a read-only /dev (no /dev/shm to fill), an abstract unix socket of the
    monitor's unreachable (the network namespace has its own), bound files whose access time
    a read does not change (read-only mounts), and the keyring and locks denied."""
    import socket

    listener = socket.socket(socket.AF_UNIX)
    name = f"pdharness-test-{os.getpid()}"
    listener.bind("\0" + name)
    listener.listen()
    watched = ROOT / "harness" / "__init__.py"
    os.utime(watched, (0, watched.stat().st_mtime))   # an access time relatime would move
    try:
        seen = inside_json(f"""
            import ctypes, fcntl, json, os, socket
            def works(action):
                try:
                    action()
                    return True
                except OSError:
                    return False
            client = socket.socket(socket.AF_UNIX)
            libc = ctypes.CDLL(None, use_errno=True)
            print(json.dumps({{
                "sys": os.path.exists("/sys/fs"),
                "dev_shm": works(lambda: open("/dev/shm/x", "w")),
                "dev": works(lambda: open("/dev/x", "w")),
                "abstract": works(lambda: client.connect("\\0{name}")),
                "read": len(open({str(watched)!r}).read()) > 0,
                "flock": works(lambda: fcntl.flock(open("/usr/bin/env"), fcntl.LOCK_SH)),
                "proc_sys": works(lambda: open("/proc/sys/kernel/hostname", "w").write("x")),
                "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
            }}))
        """)
    finally:
        listener.close()
    assert seen.pop("pids")[-1] <= 3
    assert seen == {"sys": False, "dev_shm": False, "dev": False, "abstract": False,
                    "read": True, "flock": False, "proc_sys": False}
    assert watched.stat().st_atime == 0


# -- reading the cgroup files -----------------------------------------------------------------
V1_CGROUP = "4:memory:/process_api/abc\n2:cpu,cpuacct:/\n8:pids:/x\n0::/\n"
MOUNTINFO = (
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "39 31 0:36 /x /sys/fs/cgroup/pids rw,relatime shared:9 - cgroup cgroup rw,pids\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
    "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n")


def test_own_groups_and_cgroup_mounts_are_read_as_the_kernel_writes_them():
    assert cgroups.own_groups(V1_CGROUP) == {"memory": "/process_api/abc", "cpu": "/",
                                             "cpuacct": "/", "pids": "/x", "": "/"}
    mounts = cgroups.cgroup_mounts(MOUNTINFO)
    assert [(v, point, root) for v, point, root, _c in mounts] == [
        (1, "/sys/fs/cgroup/memory", "/"), (1, "/sys/fs/cgroup/cpu,cpuacct", "/"),
        (1, "/sys/fs/cgroup/pids", "/x"), (2, "/sys/fs/cgroup/unified", "/")]
    assert cgroups._inside_mount("/m", "/x", "/x/y") == "/m/y"
    assert cgroups._inside_mount("/m", "/x", "/elsewhere") is None


def test_on_cgroup_v2_groups_go_under_the_deepest_group_that_hands_out_memory(tmp_path):
    """v2 allows no process in a group that hands controllers to its children: our own
    group qualifies only when it hands them out (delegated to us that way), else the
    nearest one above it that does."""
    mount = tmp_path / "cgroup"
    own = mount / "user.slice" / "session.scope"
    own.mkdir(parents=True)
    for folder, enabled in [(mount, "cpu io memory pids"), (mount / "user.slice", "pids"),
                            (own, "")]:
        (folder / "cgroup.subtree_control").write_text(enabled + "\n")
    mounts = [(2, str(mount), "/", frozenset())]
    groups = {"": "/user.slice/session.scope"}
    (found,) = cgroups.hierarchies(groups, mounts)
    assert (found.version, found.parent, found.controllers) == (
        2, str(mount), frozenset({"cpu", "memory", "pids"}))
    (mount / "user.slice" / "cgroup.subtree_control").write_text("memory pids\n")
    (found,) = cgroups.hierarchies(groups, mounts)
    assert (found.parent, found.controllers) == (str(mount / "user.slice"),
                                                 frozenset({"memory", "pids"}))
    assert cgroups._settings(found, cgroups.Budget(1 << 30, 32)) == [
        ("memory.max", str(1 << 30)), ("memory.swap.max?", "0"), ("pids.max", "32")]


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_read_as_cgroup_files_never_raises(text):
    cgroups.own_groups(text)
    cgroups.cgroup_mounts(text)


# -- a cgroup per agent -----------------------------------------------------------------------
@pytest.fixture
def grouped():
    found = cgroups.available()
    if found is None:
        if os.geteuid() == 0 and os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI runs as root: a cgroup per agent must be possible there")
        pytest.skip("no cgroup can be made here: forks are denied instead")
    return found


HOARDERS = """
    import json, os
    release_read, release = os.pipe()        # children wait for it to close, then leave
    children = []
    for child in range({count}):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(release)
            try:
                block = bytearray({size})
                block[::4096] = b"x" * len(block[::4096])
                os.write(write, b"y")
            except MemoryError:
                os._exit(1)
            os.read(release_read, 1)
            os._exit(0)
        os.close(write)
        children.append((pid, os.read(read, 1) == b"y"))
    os.close(release)                         # all that are alive now held theirs at once
    held = sum(noted and os.waitpid(pid, 0)[1] == 0 for pid, noted in children)
    print(json.dumps(held))
"""


def test_an_agent_that_forks_holds_no_more_memory_than_its_limit_together(sandboxed, grouped):
    """Six children of 100 MiB each under a 256 MiB limit: at most two hold theirs (the
    kernel kills the others, whichever it picks), not six."""
    held = inside_json(HOARDERS.format(count=6, size=100 * MIB), memory=256 * MIB)
    assert held <= 2


def test_under_process_isolation_too_memory_is_counted_per_agent(grouped):
    from harness.isolation.sandbox import launcher

    launch = launcher(builtin_spec("cooperate"), Isolation("process", 1.0, 256 * MIB))(
        [sys.executable, "-c", textwrap.dedent(HOARDERS.format(count=6, size=100 * MIB))],
        host_environment(""))
    try:
        done = subprocess.run(launch.argv, env=launch.env, capture_output=True, text=True,
                              timeout=120, **launch.popen_options())
    finally:
        launch.close()
        launch.ended()
    assert int(done.stdout) <= 2


def test_a_host_gets_a_group_of_its_own_which_goes_with_it(grouped):
    def ours():
        return {entry.name for h in grouped.hierarchies
                for entry in os.scandir(h.monitor_group()) if entry.is_dir()} \
            if all(os.path.isdir(h.monitor_group()) for h in grouped.hierarchies) else set()

    before = ours()
    handle = open_handle(builtin_spec("titfortat"), Isolation("process", 5.0))
    try:
        during = ours() - before
        assert len(during) == 1
        pid = handle.host.process.pid
        (name,) = during
        memory = next(h for h in grouped.hierarchies if "memory" in h.controllers)
        with open(os.path.join(memory.monitor_group(), name, "cgroup.procs")) as procs:
            assert pid in {int(line) for line in procs}
    finally:
        handle.close()
    for _ in range(500):   # removed at once, or by the reaper once its last process is gone
        if ours() == before:
            break
        time.sleep(0.02)
    assert ours() == before


BURNS_IN_A_CHILD = """
import os, time
if os.fork() == 0:
    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass
    os._exit(0)
os.wait()
"""


def test_a_group_counts_the_cpu_time_of_all_its_processes(grouped):
    """What the time limit reads as the agent's CPU (harness/isolation/own_time.py): a
    grandchild's work is in it, though its parent only waited."""
    group = grouped.make(cgroups.Budget(64 * MIB, 8))
    try:
        counter = group.cpu_counter()
        assert counter is not None

        def used():
            with open(counter, "rb") as read:
                text = read.read()
            if counter.endswith("cpu.stat"):
                return int(text.split()[1]) / 1e6
            return int(text) / 1e9

        before = used()
        subprocess.run([sys.executable, "-c", BURNS_IN_A_CHILD], preexec_fn=group.enter,
                       check=True, timeout=120)
        assert used() - before >= 0.3
    finally:
        group.remove()


def test_a_group_that_cannot_count_cpu_time_lets_no_agent_fork(monkeypatch):
    """A child's CPU time would not count towards the agent's time limit: so no child."""
    from harness.isolation import confinement

    memory_only = cgroups.Hierarchy(1, "/nowhere", frozenset({"memory"}))
    groups = cgroups.Groups([memory_only])
    monkeypatch.setattr(groups, "make", lambda budget: cgroups.AgentGroup(
        [(memory_only, "/nowhere/agent-0")]))
    monkeypatch.setattr(cgroups, "available", lambda: groups)
    found = confinement.per_agent(64 * MIB)
    assert found.cpu_counter is None and found.enter is not None
    assert found.env == confinement._game_filter(True, True)


# -- a monitor that is not root: no cgroup, so no fork; the user keyring shared by all ----------
NOT_ROOT = ["ShmHoarder.py", "MemoryForker.py", "KeyringCourier.py", "KeyringReceiver.py",
            "FlockListener.py", "LispForker.lisp", "LispKeyring.lisp"]


@pytest.fixture
def shared_folder():
    """A folder another user can reach (pytest's own are private to root)."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="pdharness-test-")
    os.chmod(folder, 0o755)
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def test_under_a_monitor_that_is_not_root_agents_cannot_fork_hoard_or_share(sandboxed, sbcl,
                                                                              shared_folder):
    """The monitor as `nobody`: bubblewrap in a user namespace, every agent under the same
    user id (so one user keyring), no cgroup (so forking denied), /dev a tmpfs of its own."""
    import shutil

    from test_hostile import HOSTILE, RUNNER, SETTINGS

    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root (to become another user) and setpriv")
    nobody = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/env"]
    python = next((python for python in (sys.executable, "/usr/bin/python3")
                   if subprocess.run([*nobody, python, "-c", "import harness.engine.tournament"],
                                     cwd="/", env=dict(os.environ, PYTHONPATH=str(ROOT)),
                                     capture_output=True).returncode == 0), None)
    if python is None:
        pytest.skip("neither this checkout nor a Python to run it is open to nobody")
    work = shared_folder / "nobody"
    work.mkdir()
    for name in NOT_ROOT:
        shutil.copy(HOSTILE / name, work)
    for path in [work, *work.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    os.chown(work, 65534, 65534)
    options = dict(SETTINGS, agents=[str(work / name) for name in NOT_ROOT] + ["titfortat"],
                   isolation="sandbox", max_rounds=1, timeout=1.0)
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(work),
               PDHARNESS_CACHE=str(work / "cache"))
    done = subprocess.run([*nobody, python, "-c", RUNNER, str(ROOT),
                           json.dumps(options)], capture_output=True, text=True, cwd=work,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    for name in (file.split(".")[0] for file in NOT_ROOT):
        moves = {turn[0] if game["a"] == name else turn[2]
                 for game in result["games"] if name in (game["a"], game["b"])
                 for turn in game["turns"]}
        assert result["agents"][name]["status"] == "ok", result["agents"][name]
        assert moves == {"CCC"}, name


INODE_PROBE = r"""
import ctypes, fcntl, json, os, struct, sys, tempfile
sys.path.insert(0, sys.argv[1])
from harness.isolation import seccomp
folder = tempfile.mkdtemp()
path = os.path.join(folder, "mine")
open(path, "w").close()
reading, writing = os.pipe()
seccomp.installer(seccomp.program())()
""" + CALLS + r"""
AT_FDCWD, AT_EMPTY_PATH = -100, 0x1000
print(json.dumps({
    "fchmod": tried(lambda: os.fchmod(reading, 0o640)),
    "fchown": tried(lambda: os.fchown(reading, -1, -1)),
    "futimens": tried(lambda: os.utime(reading)),
    "utimensat_empty_path": call(280, reading, b"", None, AT_EMPTY_PATH),
    "fchownat_empty_path": call(260, reading, b"", -1, -1, AT_EMPTY_PATH),
    "fchmodat2_empty_path": call(452, reading, b"", 0o640, AT_EMPTY_PATH),
    "futimesat": call(261, reading, None, None),
    "mincore": call(27, 0, 4096, bytes(1)),
    "set_rw_hint": tried(lambda: fcntl.fcntl(reading, 1036, struct.pack("Q", 3))),
    "get_rw_hint": tried(lambda: fcntl.fcntl(reading, 1035, bytes(8))),
    "chmod_path": tried(lambda: os.chmod(path, 0o640)),
    "utime_path": tried(lambda: os.utime(path)),
    "chown_path": tried(lambda: os.chown(path, -1, -1)),
}))
"""


def test_a_game_may_change_no_inode_through_a_descriptor_but_may_by_path():
    """What a game shares with the next (its inherited pipes; under a monitor that is not
    root, the files that user owns) it may not mark: no mode, owner, times or write-life
    hint set through a descriptor, no mincore. Its own files, by path, it may change."""
    if seccomp.architecture() != "x86_64":
        pytest.skip("the probe uses x86_64 system call numbers")
    done = subprocess.run([sys.executable, "-c", INODE_PROBE, str(ROOT)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    by_path = {"chmod_path", "utime_path", "chown_path", "get_rw_hint"}
    assert {name: value for name, value in seen.items() if name in by_path} == dict.fromkeys(
        by_path, 0)
    assert {name: value for name, value in seen.items() if name not in by_path} == dict.fromkeys(
        set(seen) - by_path, 1)   # EPERM
