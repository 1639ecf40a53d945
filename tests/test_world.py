"""A game's world (harness/isolation/world.py), seen from inside a game's process, and its cost.

Each test runs a small program as a host would (in a process of its own: `enter` never
returns in the process that calls it), which plays three "games": each a child of
`World.fork` that builds its world and reports what it sees. Every game must see the same
world, whatever the last one did in it.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # each test starts processes in namespaces of their own

HOST = textwrap.dedent("""
    import ctypes, json, os, sys
    sys.path.insert(0, sys.argv[1])
    from harness.isolation import world

    def capabilities():
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)
        data = (ctypes.c_uint32 * 6)()
        ctypes.CDLL(None).capget(header, data)
        return [data[0], data[1]]            # effective, permitted (low words)

    def game(number):
        seen = {"pid": os.getpid(), "parent": os.getppid(), "uid": os.getuid(),
                "proc": os.listdir("/proc"), "tmp": sorted(os.listdir("/tmp")),
                "capabilities": capabilities()}
        fd = os.open("/tmp/new", os.O_CREAT | os.O_WRONLY, 0o600)
        seen["inode"] = os.fstat(fd).st_ino
        os.close(fd)
        kept = os.environ.get("KEPT")
        if kept:
            seen["kept"] = open(kept).read()
            try:
                open(kept, "a").close()
                seen["kept_writable"] = True
            except OSError:
                seen["kept_writable"] = False
        # what a hostile game would leave: files, a changed /tmp, a process, many IDs used
        for index in range(20 + number * 50):
            os.mkdir(f"/tmp/left-{index}")
        os.chmod("/tmp", 0o700)
        if os.fork() == 0:
            os.setsid()
            import time
            time.sleep(60)
        print(json.dumps(seen), flush=True)

    found = world.enter()
    for number in range(3):
        pid = found.fork()
        if pid == 0:
            found.build()
            game(number)
            os._exit(0)
        os.waitpid(pid, 0)   # the game's PID 1 is gone: everything it left dies with it
        found.end()
""")


def games(tmp_path, kept=None):
    env = dict(os.environ)
    if kept is not None:
        env["PDH_WORLD_KEEP"] = str(kept)
        env["KEPT"] = str(kept)
    done = subprocess.run([sys.executable, "-c", HOST, str(ROOT)], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_game_sees_the_same_new_world(tmp_path):
    seen = games(tmp_path)
    assert len(seen) == 3
    assert seen[1:] == seen[:1] * 2
    first = seen[0]
    assert first["pid"] == 1 and first["parent"] == 0   # nothing of the host in sight
    assert first["proc"] == [] and first["tmp"] == []
    assert first["uid"] == 1000
    assert first["capabilities"] == [0, 0]


def test_what_the_host_needs_under_tmp_is_kept_read_only(tmp_path):
    """A checkout or venv under /tmp (tmp_path is there): bound back into each game's /tmp."""
    kept = tmp_path / "kept.txt"
    kept.write_text("the harness")
    seen = games(tmp_path, kept)
    assert [game["kept"] for game in seen] == ["the harness"] * 3
    assert not any(game["kept_writable"] for game in seen)
    assert seen[1:] == seen[:1] * 2


def test_a_game_cannot_mount_or_make_namespaces(tmp_path):
    """No capability is left in a game (even before its seccomp filter): no mount, no new
    mount or PID namespace."""
    program = textwrap.dedent("""
        import ctypes, json, os, sys
        sys.path.insert(0, sys.argv[1])
        from harness.isolation import world

        found = world.enter()
        pid = found.fork()
        if pid == 0:
            found.build()
            libc = ctypes.CDLL(None, use_errno=True)
            print(json.dumps([libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, None),
                              libc.unshare(0x00020000), libc.unshare(0x20000000)]),
                  flush=True)
            os._exit(0)
        os.waitpid(pid, 0)
        found.end()
    """)
    done = subprocess.run([sys.executable, "-c", program, str(ROOT)], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [-1, -1, -1]


def test_a_game_dies_with_its_zygote(tmp_path):
    """In a world, a game's process needs no PR_SET_PDEATHSIG (harness/isolation/host.py
    sets none there): the zygote is PID 1 of the PID namespace the game's own is nested
    in, and when it dies the kernel kills every process of both, however the game hid."""
    import signal
    import time

    program = textwrap.dedent("""
        import os, sys
        sys.path.insert(0, sys.argv[1])
        from harness.isolation import world

        found = world.enter()
        pid = found.fork()
        if pid == 0:
            found.build()
            if os.fork() == 0:
                os.setsid()   # a grandchild of the game, in a session of its own
                os.execv("/bin/sleep", ["sleep", "120"])
            print("playing", flush=True)
            os.execv("/bin/sleep", ["sleep", "120"])
        os.waitpid(pid, 0)
    """)
    host = subprocess.Popen([sys.executable, "-c", program, str(ROOT)], cwd=tmp_path,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout.readline() == "playing\n"
        zygote, = _children(host.pid)
        game, = _children(zygote)
        left = [game, *_children(game)]
        assert len(left) == 2
        os.kill(zygote, signal.SIGKILL)
        host.wait(timeout=60)
        deadline = time.monotonic() + 60   # a bound on the kernel's work, not a timing claim
        while any(_alive(pid) for pid in left) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in left)
    finally:
        host.kill()
        host.wait()


def _children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listing:
            found += [int(word) for word in listing.read().split()]
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie nobody reaped yet (its parent may be this test's init)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _ended_child(how: str) -> tuple[int, int]:
    """(pid, pidfd) of a child that ended `how` ("exit N" or "signal N") and is not reaped."""
    pid = os.fork()
    if pid == 0:   # never returns into pytest
        try:
            kind, number = how.split()
            if kind == "signal":
                if int(number) != signal.SIGKILL:
                    signal.signal(int(number), signal.SIG_DFL)
                os.kill(os.getpid(), int(number))
            os._exit(int(number))
        finally:
            os._exit(99)
    pidfd = os.pidfd_open(pid)
    select.select([pidfd], [], [])   # readable once it has ended
    return pid, pidfd


@pytest.mark.parametrize("how", ["exit 0", "exit 3", "exit 255", "signal 9", "signal 15",
                                 "signal 6"])
def test_the_zygote_tells_a_death_before_it_reaps(how):
    """DIED is written while the game's process is still there to be seen dead (own_time.py
    relies on it): its status, read without reaping, is what waitpid then reaps."""
    from harness.isolation.host import status_of_ended

    pid, pidfd = _ended_child(how)
    try:
        told = status_of_ended(pidfd)
        assert open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()[0] == "Z"
        assert told == os.waitpid(pid, 0)[1]
    finally:
        os.close(pidfd)


def test_a_status_the_kernel_cannot_tell_unreaped_is_none():
    """None, not a made-up status, when waitid cannot read it (here: no child of ours; on a
    kernel before 5.4: no P_PIDFD): the zygote then reaps first and says waitpid's."""
    from harness.isolation.host import status_of_ended

    pidfd = os.pidfd_open(os.getppid())
    try:
        assert status_of_ended(pidfd) is None
    finally:
        os.close(pidfd)


# -- the world's mounts, written once for both hosts -----------------------------------------
TMP_FILLER = """(defun TmpFiller (hist score)
  (declare (ignore hist score))
  ;; 2 MiB into this game's /tmp: C if it fits, D if the world's /tmp is smaller
  (handler-case
      (with-open-file (out "/tmp/filler" :direction :output :if-exists :supersede
                                         :element-type '(unsigned-byte 8))
        (write-sequence (make-array (* 2 1024 1024) :element-type '(unsigned-byte 8)
                                                    :initial-element 7) out)
        (finish-output out)
        '(C C C))
    (error () '(D D D))))
"""


def test_the_lisp_host_spells_no_mount_of_its_own():
    """Each game's mounts are world.py's (GAME_MOUNTS): the SBCL host is given them at its
    start and writes none itself."""
    from harness.isolation import world
    from lisp_bridge.sbcl import SOURCES

    lisp = "\n".join(part.read_text() for part in SOURCES)
    assert "size=" not in lisp and "mode=1777" not in lisp
    given = world.mounts_environment()[world.MOUNTS].splitlines()
    assert [line.split(" ", 2) for line in given] == [
        [target, str(flags), options] for target, flags, options in world.GAME_MOUNTS]
    assert f"size={world.TMP_SIZE}," in given[0]


@pytest.mark.parametrize("tmp_bytes, answer", [(None, "C"), (1024 * 1024, "D")])
def test_a_lisp_game_mounts_what_world_py_says(tmp_path, monkeypatch, sbcl, sandboxed,
                                               tmp_bytes, answer):
    """A Lisp agent's game has the /tmp world.py describes: told a 1 MiB /tmp instead, the
    host mounts that, and 2 MiB no longer fit."""
    from harness.agents.specs import builtin_spec, file_spec
    from harness.core.rules import GameParams
    from harness.engine.game import play_game
    from harness.isolation import world
    from harness.isolation.handles import opening

    if tmp_bytes is not None:
        mounts = tuple((target, flags, f"size={tmp_bytes},mode=1777" if target == "/tmp"
                        else options) for target, flags, options in world.GAME_MOUNTS)
        monkeypatch.setattr(world, "GAME_MOUNTS", mounts)
    agent = tmp_path / "TmpFiller.lisp"
    agent.write_text(TMP_FILLER)
    isolation = opening.Isolation("sandbox", timeout=20.0, load_timeout=60.0)
    handle = opening.open_handle(file_spec(agent), isolation)
    other = opening.open_handle(builtin_spec("cooperate"), opening.Isolation("none"))
    try:
        record = play_game(handle, other, 2, 1, GameParams())
    finally:
        handle.close()
    assert set(record.intended_a) == {answer * 3}, record
