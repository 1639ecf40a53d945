"""The bubblewrap command line that starts one host in its sandbox, for what the sandbox
can do on this machine (`Support`, probed once by harness/isolation/sandbox.py)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from . import limits as resource_limits
from .launch import next_uid
from .sandbox_views import Views, ancestors, inside
from .world import REQUIRED, TMP_SIZE

SANDBOX_PATH = "/usr/bin:/bin"
OUTSIDE_ROOT_ID = 65534            # a root monitor's user in a sandbox of its own namespace

# How a sandbox is built on this machine (chosen once by `sandbox.support()`):
DEDICATED_USER = "dedicated-user"  # root monitor: bwrap as root, agent under its own uid
USER_NAMESPACE = "user-namespace"  # bwrap in a user namespace, agent keeps the caller's uid


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


def bwrap_command(argv, env, views: Views, found: Support, data_fd: int | None,
                  filter_fd: int | None = None) -> list[str]:
    perms = (lambda mode: ["--perms", mode]) if "--perms" in found.options else (lambda mode: [])
    command = [found.bwrap, "--die-with-parent", "--new-session"]
    if filter_fd is not None:
        command += ["--seccomp", str(filter_fd)]
    command += _namespaces(found)
    command += ["--proc", "/proc", "--dev", "/dev"]
    if "--size" in found.options:  # the host's; each game has its own (harness/isolation/world.py)
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
        for folder in ancestors(views.bundle):   # bwrap would make them 0700: the
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


def _folders_to_make(views: Views, cwd: str) -> list[str]:
    """Every folder on the way to a bind, the agent's file or the working folder, that no
    mount provides, shallowest first."""
    wanted = [cwd] + ([views.agent_file] if views.agent_file else []) + views.roots
    mounts = views.roots + ["/tmp", "/proc", "/dev"]
    folders = {folder for path in wanted for folder in ancestors(path)}
    if not inside(cwd, views.roots):
        folders.add(cwd)
    folders = {folder for folder in folders
               if folder not in ("/", "/tmp") and not inside(folder, views.roots)
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
        uid = str(next_uid())
        assert found.setpriv is not None  # the flavour is chosen only where setpriv is
        return [found.setpriv, "--reuid", uid, "--regid", uid, "--clear-groups",
                "--inh-caps=-all", "--"]
    if found.counts_processes:
        # set inside the new user namespace, the limit counts only this sandbox's processes
        count = resource_limits.DEFAULT_PROCESSES
        assert found.prlimit is not None  # counts_processes says so
        return [found.prlimit, f"--nproc={count}:{count}", "--"]
    return []


def _sandbox_env(env, views: Views) -> dict[str, str]:
    kept = {name: value for name, value in env.items()
            if name not in ("HOME", "PATH", "XDG_CACHE_HOME", "TMPDIR")}
    kept.update({"PATH": SANDBOX_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", REQUIRED: "1"})
    if views.cache:
        kept["PDHARNESS_CACHE"] = views.cache
    return kept
