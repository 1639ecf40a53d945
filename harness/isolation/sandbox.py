"""`--isolation sandbox`: each agent's host process starts inside bubblewrap.

What the agent's process gets (docs/readme/untrusted.md says it for users):
- its own PID, IPC, UTS and network namespaces: it sees and can signal only its own
  processes, and has no network but an isolated loopback;
- a read-only view of only what the host needs: /usr (system libraries, SBCL), the Python
  installation and its site folders, what the agent's language adds (harness/agents/lang: SBCL
  elsewhere, the folders of hy and hyrule), the harness and lisp_bridge packages, the
  harness's cache, and a read-only copy of its own file at the file's path (not the
  folder around it, so no other submission); a bundle's agent, its own bundle's snapshot
  instead (harness/agents/bundles.py), read-only, as its current folder, and no other
  bundle's (snapshots are kept in folders no agent can list: bundles.snapshots_root);
- of the site folders, once the host has made its world, only what agents may import: the
  declared agent packages, hy and hyrule (harness/isolation/world.py, cover_libraries);
- a private, empty, size-limited /tmp, a minimal /dev, its own /proc, no capabilities, a
  new session (no terminal to inject input into), SIGKILL when the monitor dies;
- a minimal environment, and the resource limits of harness/isolation/limits.py.

When the monitor runs as root (the usual case on a grading server) the agent would be
root inside the sandbox too, and the kernel never counts root's processes; so each sandbox
drops to a user id of its own (`setpriv`), which also makes the process limit hold per
agent. Without `setpriv`, or where that user cannot read the Python installation, the
sandbox keeps root inside a user namespace without capabilities and no process limit.

Where bubblewrap cannot run at all (not Linux, not installed, no user namespaces), one
warning on stderr says what is not protected, and agents run as plain processes with the
resource limits (`process` isolation: under a root monitor, as users of their own).
"""
from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from . import confinement, limits as resource_limits

if TYPE_CHECKING:
    from harness.agents.specs import AgentSpec

UID_BASE = 1_900_000_000           # sandbox user ids: far above any real account's
UID_SPAN = 100_000_000
SANDBOX_PATH = "/usr/bin:/bin"
OUTSIDE_ROOT_ID = 65534            # a root monitor's user in a sandbox of its own namespace

# How a sandbox is built on this machine (chosen once by `support()`):
DEDICATED_USER = "dedicated-user"  # root monitor: bwrap as root, agent under its own uid
USER_NAMESPACE = "user-namespace"  # bwrap in a user namespace, agent keeps the caller's uid


@dataclass
class Launch:
    """How to start one host process: what Popen needs, and fds to close once it started."""

    argv: list[str]
    env: dict[str, str]
    preexec_fn: Callable | None = None
    pass_fds: tuple[int, ...] = ()
    cpu_seconds: int | None = None     # the CPU time limit it will run under
    release: Callable | None = None    # call once the process has ended (its cgroup)
    cpu_counter: str | None = None     # its cgroup's CPU counter (own_time.CallClock)

    def popen_options(self) -> dict:
        options: dict[str, object] = {}
        if self.preexec_fn is not None:
            options["preexec_fn"] = self.preexec_fn
        if self.pass_fds:
            options["pass_fds"] = self.pass_fds
        return options

    def close(self) -> None:
        """The process started (or could not): close the parent's copies of its fds."""
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def ended(self) -> None:
        """The process and all it started are gone (killed and waited for)."""
        release, self.release = self.release, None
        if release is not None:
            release()


@dataclass(frozen=True)
class Support:
    """What the sandbox can do here; `flavor` None when it cannot run at all."""

    flavor: str | None
    reason: str = ""
    bwrap: str = "bwrap"
    setpriv: str | None = None
    prlimit: str | None = None
    options: frozenset = frozenset()   # optional bwrap options this version knows

    @property
    def counts_processes(self) -> bool:
        return self.flavor == DEDICATED_USER or (
            self.flavor == USER_NAMESPACE and os.geteuid() != 0 and self.prlimit is not None)


# -- the hook the process handle uses ---------------------------------------------------------
def launcher(spec, isolation) -> Callable[[list[str], dict], Launch]:
    """For an agent and an isolation mode, the function (argv, env) -> Launch that the
    process handle calls for every process it starts (the first and every replacement)."""
    memory = getattr(isolation, "memory_limit", resource_limits.DEFAULT_MEMORY)
    if isolation.mode == "sandbox":
        found = support()
        if found.flavor is not None:
            return _sandboxed(spec, memory, found)
        warn_once(found.reason)
    return _plain(spec, memory)


def _plain(spec, memory):
    """`process` isolation: the same resource limits and system call filter, a cgroup where
    one can be made, each game's own world where the kernel allows one, no OS sandbox. Under
    a root monitor each process runs as a user of its own (harness/isolation/agent_user.py), which
    also makes the process limit hold per agent."""
    from .world import OFF

    as_root = os.geteuid() == 0
    limits = resource_limits.Limits(
        memory=memory, processes=resource_limits.DEFAULT_PROCESSES if as_root else None)
    filtered = seccomp_installer(unix_sockets=False)  # no network namespace of its own
    kept = _Views.of(spec).kept()
    keep_read = as_root and _keeps_read(spec)

    def launch(argv, env):
        per_agent = confinement.per_agent(memory, unix_sockets=False)
        become = _dropper(_next_uid(), keep_read) if as_root else None
        source = _given_source(spec)
        preexec = resource_limits.preexec(limits, die_with_parent=True,
                                          first=per_agent.enter, last=filtered,
                                          become=become)
        # a root monitor's agents that keep root's right to read would lose it in a game's
        # world (harness/isolation/world.py, OFF): their games are plain forks
        world = {OFF: "1"} if keep_read else kept
        return Launch(per_agent.command(argv),
                      dict(env, **per_agent.env, **world, **source.env), preexec, source.fds,
                      cpu_seconds=limits.cpu_seconds, release=per_agent.release,
                      cpu_counter=per_agent.cpu_counter)

    return launch


@dataclass
class _Given:
    env: dict[str, str] = field(default_factory=dict)
    fds: tuple[int, ...] = ()


def _given_source(spec) -> _Given:
    """The agent file's bytes as the run plays them (AgentSpec.content), on a descriptor
    the host reads (harness/agents/agent_files.py, SOURCE_FD): never the file again."""
    if not spec.is_file:
        return _Given()
    from harness.agents.agent_files import SOURCE_FD, source_memfd

    fd = source_memfd(spec.content())
    return _Given({SOURCE_FD: str(fd)}, (fd,))


def _dropper(uid: int, keep_read: bool):
    from harness.core.errors import HarnessError

    from .agent_user import CannotDrop, dropper

    try:
        return dropper(uid, keep_read)
    except CannotDrop as error:  # never run an agent as root instead
        raise HarnessError(f"--isolation process as root: {error}; run the monitor as an "
                           "ordinary user, or use --isolation sandbox") from error


_read_checks: dict[tuple[str, ...], str | None] = {}   # paths -> why a host needs the right
_read_lock = threading.Lock()
_read_noted = False


def _keeps_read(spec) -> bool:
    """Under a root monitor, whether this agent's host must keep CAP_DAC_READ_SEARCH
    (harness/isolation/agent_user.py): only when a user of its own without capabilities cannot read
    what the host reads (the interpreter, its standard library and site folders, the
    harness, the language's own files, the cache for languages that use it), found out by
    trying once per set of paths. Said once on stderr when kept."""
    global _read_noted
    from .agent_user import unreadable

    paths = _system_roots() + _python_roots() + _package_roots() + _language_roots(spec)
    cache = _cache_of(spec)
    key = tuple(dict.fromkeys(paths + ([cache] if cache else [])))
    with _read_lock:
        if key not in _read_checks:
            _read_checks[key] = unreadable(key, _next_uid())
        why = _read_checks[key]
        if why is None or _read_noted:
            return why is not None
        _read_noted = True
    from harness.core.safe_text import line  # quotes a path

    print(f"pdharness: note: process isolation as root: agents keep the right to read every "
          f"file (CAP_DAC_READ_SEARCH), since a user of their own cannot run their host: "
          f"{line(why)}. To avoid it, make the venv from the system Python (/usr/bin/python3 "
          f"-m venv) in a folder every user can read, and keep PDHARNESS_CACHE there too "
          f"(see README, 'Running untrusted submissions').", file=sys.stderr)
    return True


def seccomp_installer(unix_sockets: bool = True):
    """What installs the host's filter between fork and exec (each game's process adds the
    full one: harness/isolation/world.py), or None on an architecture
    harness/isolation/seccomp.py has no numbers for."""
    from . import seccomp

    try:
        return seccomp.installer(seccomp.program(unix_sockets=unix_sockets, host=True))
    except seccomp.Unsupported:
        return None


_uids = itertools.count()


def _next_uid() -> int:
    """A user id no other running sandbox of this monitor has (and, with the pid mixed in,
    most likely none of another monitor's either)."""
    return UID_BASE + (os.getpid() * 10_000 + next(_uids)) % UID_SPAN


def _sandboxed(spec, memory, found: Support):
    views = _Views.of(spec)
    kept = views.kept()

    def launch(argv, env):
        per_agent = confinement.per_agent(memory)
        argv = per_agent.command(argv)
        fds: tuple[int, ...] = ()
        try:
            source = _given_source(spec)
            fds = source.fds
            data_fd = views.open_agent_file()
            fds += (data_fd,) if data_fd is not None else ()
            filter_fd = confinement.filter_fd()
            fds += (filter_fd,) if filter_fd is not None else ()
            command = bwrap_command(argv, dict(env, **per_agent.env, **kept, **source.env),
                                    views, found, data_fd, filter_fd)
        except BaseException:
            failed = Launch([], {}, pass_fds=fds, release=per_agent.release)
            failed.close()
            failed.ended()
            raise
        processes = resource_limits.DEFAULT_PROCESSES if found.flavor == DEDICATED_USER else None
        limits = resource_limits.Limits(memory=memory, processes=processes)
        return Launch(command, {"PATH": SANDBOX_PATH},
                      resource_limits.preexec(limits, first=per_agent.enter), fds,
                      limits.cpu_seconds, per_agent.release, per_agent.cpu_counter)

    return launch


# -- what the sandbox shows ------------------------------------------------------------------
@dataclass
class _Views:
    """The host paths bound read-only (each at its own path), and the agent's file."""

    roots: list[str]                   # directories and files bound as they are
    agent_file: str | None             # absolute path; a read-only copy appears there
    hidden: list[str] = field(default_factory=list)  # bound folders covered by empty ones
    cache: str | None = None
    spec: AgentSpec | None = None
    bundle: str | None = None          # a bundle's snapshot, bound read-only at its path

    @classmethod
    def of(cls, spec) -> "_Views":
        cache = _cache_of(spec)
        roots = _system_roots() + _python_roots() + _package_roots() + _language_roots(spec)
        if cache:
            roots.append(cache)
        roots = _outermost(roots)
        agent_file = bundle = None
        if spec.is_bundle:   # the file is in its bundle's folder
            bundle = _bundle_folder(spec)
        elif spec.is_file:
            agent_file = os.path.abspath(spec.source)
        hidden = []
        for folder in (*_bundled_agents_dirs(),
                       os.path.dirname(agent_file) if agent_file else None,
                       _compiled_agents_dir() if cache else None,
                       _snapshots_root() if cache else None):
            if folder and _inside(folder, roots) and folder not in hidden:
                hidden.append(folder)
        return cls(roots, agent_file, hidden, cache, spec, bundle)

    def open_agent_file(self) -> int | None:
        """The bytes the run plays (AgentSpec.content), for --ro-bind-data at the file's path."""
        if self.agent_file is None:
            return None
        from harness.agents.agent_files import source_memfd

        assert self.spec is not None  # an agent file's views are made from its spec
        return source_memfd(self.spec.content())

    def kept(self) -> dict[str, str]:
        """What each game's world must keep of /tmp (harness/isolation/world.py), for its host."""
        from .world import KEEP, kept_paths

        paths = kept_paths(self.roots)   # the cache among them only if it is read: _cache_of
        return {KEEP: paths} if paths else {}


def _cache_of(spec) -> str | None:
    """The cache folder this agent's host reads, if its language uses one: bound for it, and
    checked for its user, only then (a folder the host never reads must not stop its world:
    one under a private /tmp folder could not be bound)."""
    language = spec.file_language
    return _cache_dir() if language is not None and language.reads_cache else None


def _system_roots() -> list[str]:
    roots = ["/usr"]
    for path in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.isdir(path) and not os.path.islink(path):
            roots.append(path)
    if os.path.exists("/etc/ld.so.cache"):
        roots.append("/etc/ld.so.cache")  # where the dynamic linker finds libraries
    return roots


def _python_roots() -> list[str]:
    """The interpreter, its standard library and its site folders (those the host is told
    to use, a virtual environment's included)."""
    import sysconfig

    from harness.agents.lang.python_process import site_folders

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(site_folders())
    paths = sysconfig.get_paths()
    roots.update(paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")
                 if key in paths)
    roots.add(os.path.realpath(_python_executable()))
    return [root for root in roots if root and os.path.exists(root)]


def _python_executable() -> str:
    from harness.agents.lang.python_process import python_executable

    return python_executable()


def _package_roots() -> list[str]:
    """The harness and lisp_bridge packages, not the folder that holds them."""
    from harness.agents.lang.python_process import package_root

    root = package_root()
    return [path for path in (os.path.join(root, "harness"), os.path.join(root, "lisp_bridge"))
            if os.path.isdir(path)]


def _language_roots(spec) -> list[str]:
    """What the host of the agent's language needs besides Python (Language.sandbox_roots)."""
    language = spec.file_language
    return language.sandbox_roots() if language is not None else []


def _cache_dir() -> str | None:
    try:
        from harness.agents.cache import cache_dir

        return str(cache_dir().resolve())
    except OSError:
        return None


def _compiled_agents_dir() -> str | None:
    try:
        from harness.agents.cache import compiled_agents_dir

        return str(compiled_agents_dir().resolve())
    except OSError:
        return None


def _bundle_folder(spec) -> str:
    return os.path.abspath(spec.bundle().folder)


def _snapshots_root() -> str | None:
    """Where bundles' snapshots are kept: hidden, but for the agent's own, should a cache
    bound for the host lie over it."""
    try:
        from harness.agents.bundles import snapshots_root

        return os.path.realpath(snapshots_root())
    except OSError:
        return None


def _bundled_agents_dirs() -> list[str]:
    """The bundled example agents: where they are imported from, and an installed copy in
    the site folders the sandbox shows (`pip install .` puts one there)."""
    import importlib.util
    import sysconfig

    found = []
    try:
        spec = importlib.util.find_spec("student_agents")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        found.append(os.path.dirname(os.path.abspath(spec.origin)))
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        folder = os.path.join(paths.get(key, ""), "student_agents")
        if paths.get(key) and os.path.isdir(folder) and folder not in found:
            found.append(folder)
    return found


def _inside(path: str, roots) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _outermost(paths) -> list[str]:
    """Each path once, without those already inside another (binding those adds nothing)."""
    kept: list[str] = []
    for path in sorted({os.path.abspath(p) for p in paths}, key=lambda p: (p.count("/"), p)):
        if not _inside(path, kept):
            kept.append(path)
    return kept


def _ancestors(path: str) -> list[str]:
    parts, found = path.strip("/").split("/")[:-1], []
    for depth in range(1, len(parts) + 1):
        found.append("/" + "/".join(parts[:depth]))
    return found


# -- the bwrap command line ------------------------------------------------------------------
def bwrap_command(argv, env, views: _Views, found: Support, data_fd: int | None,
                  filter_fd: int | None = None) -> list[str]:
    perms = (lambda mode: ["--perms", mode]) if "--perms" in found.options else (lambda mode: [])
    command = [found.bwrap, "--die-with-parent", "--new-session"]
    if filter_fd is not None:
        command += ["--seccomp", str(filter_fd)]
    command += _namespaces(found)
    command += ["--proc", "/proc", "--dev", "/dev"]
    if "--size" in found.options:  # the host's; each game has its own (harness/isolation/world.py)
        from .world import TMP_SIZE

        command += ["--size", str(TMP_SIZE)]
    command += perms("1777") + ["--tmpfs", "/tmp"]
    cwd = views.bundle or os.getcwd()   # a bundle's agent works in its own folder
    # bwrap gives the folders it creates on the way to a bind the modes of the host's
    # (/root is 0700): a sandbox user could not reach its own files through them
    for folder in _folders_to_make(views, cwd):
        command += perms("0755") + ["--dir", folder]
    for root in views.roots:
        command += ["--ro-bind", root, root]
    for link in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(link):
            command += ["--symlink", os.readlink(link), link]
    for folder in views.hidden:
        command += perms("0755") + ["--tmpfs", folder]
    if views.agent_file is not None:
        command += perms("0444") + ["--ro-bind-data", str(data_fd), views.agent_file]
    if views.bundle is not None:   # over the empty folder that hides every snapshot
        for folder in _ancestors(views.bundle):   # bwrap would make them 0700: the
            if any(folder.startswith(hidden + "/") for hidden in views.hidden):  # agent's
                command += perms("0711") + ["--dir", folder]   # user could not reach it
        command += ["--ro-bind", views.bundle, views.bundle]
    # /dev is a tmpfs of half the RAM, its shm folder writable by a sandbox in a user
    # namespace: read-only, no agent stores memory there that no limit counts
    for folder in ["/", "/dev"] + views.hidden:
        command += ["--remount-ro", folder]
    command += ["--chdir", cwd, "--clearenv"]
    for name, value in sorted(_sandbox_env(env, views).items()):
        command += ["--setenv", name, value]
    command += ["--", *_inside_wrapper(found), *argv]
    return command


def _folders_to_make(views: _Views, cwd: str) -> list[str]:
    """Every folder on the way to a bind, the agent's file or the working folder, that no
    mount provides, shallowest first."""
    wanted = [cwd] + ([views.agent_file] if views.agent_file else []) + views.roots
    mounts = views.roots + ["/tmp", "/proc", "/dev"]
    folders = {folder for path in wanted for folder in _ancestors(path)}
    if not _inside(cwd, views.roots):
        folders.add(cwd)
    folders = {folder for folder in folders
               if folder not in ("/", "/tmp") and not _inside(folder, views.roots)
               and folder not in mounts}
    return sorted(folders, key=lambda p: (p.count("/"), p))


def _namespaces(found: Support) -> list[str]:
    if found.flavor == DEDICATED_USER:
        # no user namespace: bwrap sets up as root, then `setpriv` leaves for a plain uid
        return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--cap-drop", "ALL",
                "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    # not --disable-userns: the host makes each game's namespaces (harness/isolation/world.py), and
    # each game's own filter denies agent code any
    options = ["--unshare-all", "--unshare-user", "--cap-drop", "ALL"]
    if os.geteuid() == 0:
        # a user namespace may not map the outer root as its root without CAP_SETFCAP,
        # which a game's namespace would need: the host is an ordinary user inside
        options += ["--uid", str(OUTSIDE_ROOT_ID), "--gid", str(OUTSIDE_ROOT_ID)]
    return options


def _inside_wrapper(found: Support) -> list[str]:
    if found.flavor == DEDICATED_USER:
        uid = str(_next_uid())
        assert found.setpriv is not None  # the flavour is chosen only where setpriv is
        return [found.setpriv, "--reuid", uid, "--regid", uid, "--clear-groups",
                "--inh-caps=-all", "--"]
    if found.counts_processes:
        # set inside the new user namespace, the limit counts only this sandbox's processes
        count = resource_limits.DEFAULT_PROCESSES
        assert found.prlimit is not None  # counts_processes says so
        return [found.prlimit, f"--nproc={count}:{count}", "--"]
    return []


def _sandbox_env(env, views: _Views) -> dict[str, str]:
    from .world import REQUIRED

    kept = {name: value for name, value in env.items()
            if name not in ("HOME", "PATH", "XDG_CACHE_HOME", "TMPDIR")}
    kept.update({"PATH": SANDBOX_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", REQUIRED: "1"})
    if views.cache:
        kept["PDHARNESS_CACHE"] = views.cache
    return kept


# -- starting processes ----------------------------------------------------------------------
_spawner = None
_spawner_pid = None
_spawner_lock = threading.Lock()


def popen(*args, **kwargs) -> subprocess.Popen:
    """subprocess.Popen, called from one thread that lives as long as the monitor.

    The kernel sends the parent-death signal (bwrap's --die-with-parent, PR_SET_PDEATHSIG)
    when the *thread* that started a child ends, not its process: a host started from a
    worker thread that then finishes (the tournament opens agents on a thread pool) would
    be killed with it.
    """
    global _spawner, _spawner_pid
    from concurrent.futures import ThreadPoolExecutor

    with _spawner_lock:
        if _spawner is None or _spawner_pid != os.getpid():  # threads do not survive fork
            _spawner = ThreadPoolExecutor(1, thread_name_prefix="pdharness-spawner")
            _spawner_pid = os.getpid()
        spawner = _spawner
    return spawner.submit(subprocess.Popen, *args, **kwargs).result()


# -- can it run here? ------------------------------------------------------------------------
_support: Support | None = None
_support_lock = threading.Lock()
_warned = False


def support() -> Support:
    """Probe once per process: start the real interpreter in each kind of sandbox."""
    global _support
    with _support_lock:
        if _support is None:
            _support = _probe()
        return _support


def _probe() -> Support:
    if not sys.platform.startswith("linux"):
        return Support(None, f"bubblewrap needs Linux, this is {sys.platform}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Support(None, "bubblewrap is not installed (apt-get install bubblewrap)")
    options = _known_options(bwrap)
    prlimit, setpriv = shutil.which("prlimit"), shutil.which("setpriv")
    candidates = []
    if os.geteuid() == 0 and setpriv:
        candidates.append(Support(DEDICATED_USER, "", bwrap, os.path.realpath(setpriv),
                                  prlimit and os.path.realpath(prlimit), options))
    candidates.append(Support(USER_NAMESPACE, "", bwrap, None,
                              prlimit and os.path.realpath(prlimit), options))
    reason = ""
    for candidate in candidates:
        reason = _try(candidate)
        if not reason:
            return candidate
    return Support(None, reason)


def _known_options(bwrap: str) -> frozenset:
    try:
        text = subprocess.run([bwrap, "--help"], capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(option for option in ("--perms", "--size", "--disable-userns")
                     if option in text)


def _try(candidate: Support) -> str:
    """'' when the host's interpreter starts in this sandbox and loads the harness."""
    from harness.agents.specs import builtin_spec

    views = _Views.of(builtin_spec("cooperate"))
    from harness.agents.lang.python_process import host_environment, python_code_command

    # a game's own world is part of the sandbox (harness/isolation/world.py): tried as well
    probe = python_code_command("import harness.isolation.host, harness.isolation.world; "
                                "harness.isolation.world.probe()")

    filter_fd = confinement.filter_fd()  # the base seccomp filter, as agents will have it
    fds = (filter_fd,) if filter_fd is not None else ()
    command = bwrap_command(probe, host_environment(""), views, candidate, None, filter_fd)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30,
                              env={"PATH": SANDBOX_PATH}, pass_fds=fds)
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap does not start: {error}"
    finally:
        Launch([], {}, pass_fds=fds).close()
    if done.returncode == 0 and done.stdout == "ok":
        return ""
    lines = (done.stderr or done.stdout).strip().splitlines()
    return f"bubblewrap fails here: {lines[-1] if lines else f'exit status {done.returncode}'}"


def warn_once(reason: str) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    from harness.core.safe_text import line  # the reason quotes bubblewrap's stderr

    if os.geteuid() == 0:
        reach = ("each under a user id of its own that writes only what any user may "
                 "(/tmp) and reads what any user may (or, when it must, whatever root can)")
    else:
        reach = ("each can read and write whatever this user can, and signal other "
                 "processes, the monitor included")
    print(f"pdharness: warning: no sandbox: {line(reason)}. Agents run as plain processes with "
          f"resource limits only: {reach} (see README, 'Running untrusted submissions').",
          file=sys.stderr)


def describe() -> str:
    """One line about the sandbox on this machine, for `--isolation sandbox` users."""
    found = support()
    if found.flavor is None:
        return f"no sandbox: {found.reason}"
    if found.flavor == DEDICATED_USER:
        return "bubblewrap, each agent under a user id of its own, process limit enforced"
    if found.counts_processes:
        return "bubblewrap in a user namespace, process limit enforced"
    return "bubblewrap in a user namespace as root without capabilities, no process limit"
