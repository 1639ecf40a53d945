"""A game's world, new for every game: made by construction, never by cleaning up.

The rules say nothing an agent does in one game is visible in another. Killing what a game
left and emptying /tmp afterwards misses what a clean-up cannot see or remove (the next
process ID, inode numbers, a tree deeper than PATH_MAX) and costs more the more is there.
So each process that runs agent code (every game's, and the one that loads the agent once)
starts in namespaces of its own, and everything it did dies with them:

- a PID namespace: the game's first process is PID 1, every game alike, and nothing of
  the zygote or of an earlier game is there to see, count or signal;
- a mount namespace with a new, size-capped tmpfs on /tmp and /dev/shm (same inode
  numbers, owner, mode and times in every game), and an empty tmpfs over /proc (a new
  /proc cannot be mounted under the sandbox's, and the old one shows the zygote) and over
  /sys where there is one (`process` isolation: the agent's cgroup lives across its games,
  and its counters, the memory peak say, are a carrier from one to the next) and /dev/pts
  (no terminal: the ptys' folder, the sandbox's or the machine's, keeps its times across
  games: listing it sets its access time);
- no capability left once that is built.

The host's own IPC namespace is the games' (the game's seccomp filter denies every SysV
and POSIX IPC call: one per game would cost more than all the rest).

How: the host (harness/isolation/host.py; lisp_bridge/sbcl_host_world.lisp does the same in Lisp) calls
`enter` once it has read the agent's bytes and imported what its games need. It takes a
user namespace of its own, in which the agent's user is always AGENT_ID (the sandbox's
outer user id encodes the monitor's process ID), and forks the zygote as PID 1 of a new
PID namespace; the original process only waits and ends as the
zygote ends. For each game the zygote calls `World.fork`, which puts the child in a PID
namespace of its own, and the child calls `World.build` before any agent code runs. Ending a
game is killing its PID 1: the kernel ends everything in its namespaces with it, and the
zygote's wait returns only when they are all gone. Nothing is walked, so a game's start
and end cost the same whatever the agent did and whatever is mounted.

Where the kernel allows no user namespace (`process` isolation in some containers), and
under `process` isolation with a root monitor (`OFF`), games are plain forks of the zygote
(README, "what is protected").
"""
from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys

from harness.agents.agent_imports import COVER, SHOW

TYPE_CHECKING = False  # a host imports no more than it must: not even typing
if TYPE_CHECKING:
    from typing import NoReturn

REQUIRED = "PDH_WORLD_REQUIRED"  # set by the sandbox: no game without its own world
# set by `process` isolation under a root monitor, whose hosts run as users of their own that
# keep root's right to read (harness/isolation/agent_user.py): a user namespace would take
# that right away from every game, which then could not even import a module the host did not
OFF = "PDH_WORLD_OFF"
KEEP = "PDH_WORLD_KEEP"   # what a game must still see under /tmp (Python, the harness), by line
AGENT_ID = 1000                 # the agent's uid and gid inside its namespaces, every game
TMP_SIZE = 64 * 1024 * 1024     # bytes of memory each game's /tmp may hold
SHM_SIZE = 4 * 1024 * 1024      # and its /dev/shm

CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_MOVE = 0x1, 0x2, 0x4, 0x20, 0x1000, 0x2000
MS_REC, MS_PRIVATE = 0x4000, 0x40000

# Each game's mounts, written here once for both hosts: (target, flags, tmpfs options). The
# Python host's World.build makes them; the SBCL host is told them at its start
# (`MOUNTS`, set by the monitor for every host: lisp_bridge/sbcl_host.lisp, build-world).
# /tmp and /dev/shm are fresh and writable; the rest are empty covers, read-only.
_WRITABLE, _COVER = MS_NOSUID | MS_NODEV, MS_RDONLY | MS_NOSUID | MS_NODEV
COVER_OPTIONS = "size=4096,mode=555"
GAME_MOUNTS = (("/tmp", _WRITABLE, f"size={TMP_SIZE},mode=1777"),
               ("/dev/shm", _WRITABLE, f"size={SHM_SIZE},mode=1777"),
               ("/proc", _COVER, COVER_OPTIONS),
               ("/sys", _COVER, COVER_OPTIONS),       # where there is one: the cgroup's counters
               ("/dev/pts", _COVER, COVER_OPTIONS))   # no terminal: its folder keeps times
MOUNTS = "PDH_GAME_MOUNTS"   # GAME_MOUNTS for the SBCL host: "target flags options" a line
_OPTIONS = {target: options.encode() for target, _, options in GAME_MOUNTS}


def mounts_environment() -> dict[str, str]:
    """What tells a host that cannot import this module (SBCL's) its games' mounts."""
    return {MOUNTS: "\n".join(f"{target} {flags} {options}"
                               for target, flags, options in GAME_MOUNTS)}


PR_SET_PDEATHSIG = 1
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)


def _checked(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


def _mount(source, target: bytes, kind, flags: int, options=None) -> None:
    _checked(_libc.mount(source, target, kind, flags, options), f"mount {target.decode()}")


def _under_tmp(path: str) -> bool:
    return path.startswith("/tmp/") and "\n" not in path


def kept_paths(roots) -> str:
    """For `KEEP`: the roots a host needs (harness/isolation/sandbox.py's) that lie under /tmp,
    which each game covers with its own."""
    return "\n".join(root for root in roots if _under_tmp(root))


def end_like(status: int) -> NoReturn:
    """Exit as a child ended (its status or its signal), so whoever waits sees the same."""
    sys.stderr.flush()
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        except (OSError, ValueError):
            pass
        os._exit(128 + number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


class World:
    """The zygote's side: forks each game into new namespaces, and ends them."""

    def __init__(self, pid_namespace: int, kept=()):
        self.pid_namespace = pid_namespace   # the zygote's own: each game's is a child of it
        self.kept = [path.encode() for path in kept if _under_tmp(path)]

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        self._capability_header = Header(_LINUX_CAPABILITY_VERSION_3, 0)
        self._no_capabilities = (ctypes.c_uint32 * 6)()   # two __user_cap_data_struct, zero
        # Looked up here, once, not in every game's process: ctypes finds a C function on
        # first use (dlsym, a new function object cached on _libc), and each game's process
        # would do it anew, writing to (so copying) the zygote's pages: ~50 page faults a
        # game (benchmarks/game_process_cost.py). Whether /dev/shm is there, too: the
        # game's process sees the zygote's mounts until it makes its own.
        _libc.mount, _libc.capset  # noqa: B018 - cached on _libc by the lookup
        self._has_shm = os.path.isdir(b"/dev/shm")
        self._has_sys = os.path.isdir(b"/sys") and not os.path.islink(b"/sys")
        self._has_pts = os.path.isdir(b"/dev/pts") and not os.path.islink(b"/dev/pts")

    def fork(self) -> int:
        """os.fork, the child in a new PID namespace (its PID 1); OSError if refused."""
        _checked(_libc.setns(self.pid_namespace, CLONE_NEWPID), "setns")
        _checked(_libc.unshare(CLONE_NEWPID), "unshare")
        return os.fork()

    def build(self) -> None:
        """In the child, before any agent code: its own mounts, a new /tmp and /dev/shm,
        /proc, /sys and /dev/pts covered, and no capability left."""
        os.close(self.pid_namespace)
        _checked(_libc.unshare(CLONE_NEWNS), "unshare")
        _mount(b"none", b"/", None, MS_REC | MS_PRIVATE)
        # the new /tmp is made on /proc (covered below anyway), where what the game must
        # still see of the old one is bound into it read-only; then it moves to /tmp
        _mount(b"tmpfs", b"/proc", b"tmpfs", _WRITABLE, _OPTIONS["/tmp"])
        for path in self.kept:
            staged = b"/proc" + path[len(b"/tmp"):]
            os.makedirs(os.path.dirname(staged), 0o755, exist_ok=True)
            if os.path.isdir(path):
                os.makedirs(staged, 0o755, exist_ok=True)
            else:
                os.close(os.open(staged, os.O_CREAT | os.O_WRONLY, 0o444))
            _mount(path, staged, None, MS_BIND | MS_REC)
            _mount(None, staged, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        _mount(b"/proc", b"/tmp", None, MS_MOVE)
        if self._has_shm:
            _mount(b"tmpfs", b"/dev/shm", b"tmpfs", _WRITABLE, _OPTIONS["/dev/shm"])
        _mount(b"tmpfs", b"/proc", b"tmpfs", _COVER, _OPTIONS["/proc"])
        if self._has_sys:
            _mount(b"tmpfs", b"/sys", b"tmpfs", _COVER, _OPTIONS["/sys"])
        if self._has_pts:
            _mount(b"tmpfs", b"/dev/pts", b"tmpfs", _COVER, _OPTIONS["/dev/pts"])
        _checked(_libc.capset(ctypes.byref(self._capability_header), self._no_capabilities),
                 "capset")

    @staticmethod
    def end() -> None:
        """Kill every process of every game (the zygote is PID 1 of its namespace: -1 is all
        of them but itself) and reap them; returns when none is left."""
        while True:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                return


def enter(keep_open=()) -> World | None:
    """In a new host process, before any agent code runs: returns, in the zygote, its
    World; None where no user namespace can be made here (the caller forks games plainly);
    OSError when one was made but could not be set up. The process that called it never
    returns: it waits for the zygote and ends as it ends. `keep_open`: the descriptors only
    the zygote uses (the waiting process closes them)."""
    uid, gid = os.geteuid(), os.getegid()
    if _libc.unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0:
        if ctypes.get_errno() in (errno.EPERM, errno.EINVAL, errno.ENOSPC, errno.EUSERS):
            return None
        _checked(-1, "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{AGENT_ID} {uid} 1")
    _write("/proc/self/gid_map", f"{AGENT_ID} {gid} 1")
    zygote = os.fork()
    if zygote != 0:
        for fd in keep_open:
            os.close(fd)
        while True:
            try:
                end_like(os.waitpid(zygote, 0)[1])
            except InterruptedError:
                continue
    _checked(_libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0), "prctl")
    _checked(_libc.unshare(CLONE_NEWIPC), "unshare")   # not the machine's, under `process`
    cover_libraries()
    kept = os.environ.pop(KEEP, "").split("\n")
    return World(os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC), kept)


def cover_libraries() -> None:
    """In the zygote, once, before any agent code: every site folder the monitor named
    (agent_imports.COVER) covered by an empty read-only tmpfs, and only the entries it
    named (SHOW: the declared libraries', Hy's, the harness's when installed there) bound
    back, read-only, at their own paths. Every process that runs agent code (the one that
    loads it once, each game's) copies this mount namespace: an agent that puts a site
    folder on sys.path, or opens a file by its path, finds nothing undeclared there."""
    folders = [path for path in os.environ.pop(COVER, "").split("\n") if path]
    shown = [path for path in os.environ.pop(SHOW, "").split("\n") if path]
    if not folders:
        return
    _checked(_libc.unshare(CLONE_NEWNS), "unshare")
    _mount(b"none", b"/", None, MS_REC | MS_PRIVATE)
    held = []
    for path in shown:   # opened before their folder is covered, bound from the descriptor
        try:
            fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
            is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        held.append((path, fd, is_dir))
    covered = [folder for folder in folders if os.path.isdir(folder)]
    for folder in covered:
        _mount(b"tmpfs", folder.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=755")
    for path, fd, is_dir in held:
        try:
            if is_dir:
                os.makedirs(path, 0o755, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o444))
            _mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None, MS_BIND | MS_REC)
        finally:
            os.close(fd)
    for folder in covered:
        _mount(None, folder.encode(), None,
               MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def probe() -> None:
    """For the sandbox's probe (harness/isolation/sandbox.py): writes `ok` once a game's world was
    made and a process ran in it; else says why on stderr and exits 1."""
    try:
        world = enter()
        if world is None:
            raise OSError(0, "the kernel allows no user namespace here")
        game = world.fork()
        if game == 0:
            try:
                world.build()
            except OSError:
                os._exit(1)
            os._exit(0 if os.getpid() == 1 else 1)
        if os.waitpid(game, 0)[1] != 0:
            raise OSError(0, "a game's namespaces could not be built")
    except OSError as error:
        sys.stderr.write(f"cannot make a game's namespaces: {error.strerror or error}\n")
        sys.exit(1)
    sys.stdout.write("ok")
