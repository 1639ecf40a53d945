"""A cgroup per agent host: memory, processes and CPU counted for all its processes together.

Resource limits (harness/isolation/limits.py) count per process: an agent that forks 8 children each
holding 900 MiB would hold 7 GiB under a 1 GiB limit. Where this monitor may make cgroups
(as root on cgroup v1, as on our machines; on v2 where a group with the controllers
enabled is writable, e.g. systemd's delegated user slice), every host process starts in a
group of its own, so the agent's processes together get:

- memory: at most the memory limit (the kernel's OOM killer ends a process of that group
  when it is reached; swap is not a way around it);
- processes: at most `limits.DEFAULT_PROCESSES` tasks;
- CPU: at most one core's worth at any moment, however many processes it starts, and
  the CPU time of all of them counted together (cpuacct on v1, cpu.stat on v2), which
  the time limit reads (harness/isolation/own_time.py).

Layout: `<own group>/pdharness-<monitor pid>/agent-<n>` in each hierarchy used. A host's
group is removed when the host ends (its remaining processes killed first, so under
`process` isolation no child outlives its agent), the monitor's at exit; groups that a
killed monitor left behind are removed by the next one. Where no group can be made,
`available()` is None and the per-process limits hold (see harness/isolation/seccomp.py for forks).
"""
from __future__ import annotations

import atexit
import itertools
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

CGROUP_ROOT = "/sys/fs/cgroup"
PREFIX = "pdharness-"
CPU_PERIOD_US = 100_000


@dataclass(frozen=True)
class Hierarchy:
    """Where this monitor's groups go in one hierarchy, and which controllers it has."""

    version: int                 # 1 or 2
    parent: str                  # the folder the monitor's own group is made in
    controllers: frozenset

    def monitor_group(self) -> str:
        return os.path.join(self.parent, f"{PREFIX}{os.getpid()}")


# -- finding the hierarchies -----------------------------------------------------------------
def own_groups(text: str) -> dict[str, str]:
    """/proc/self/cgroup read: controller name (or '' for v2) -> the group's path."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        for name in parts[1].split(",") if parts[1] else [""]:
            found.setdefault(name, parts[2])
    return found


def cgroup_mounts(text: str) -> list[tuple[int, str, str, frozenset]]:
    """/proc/self/mountinfo read: (version, mount point, mounted root, controllers)."""
    found = []
    for line in text.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        if dash < 5 or len(fields) < dash + 3:
            continue
        fstype, options = fields[dash + 1], fields[dash + 3].split(",")
        root, point = _unescape(fields[3]), _unescape(fields[4])
        if fstype == "cgroup":
            found.append((1, point, root, frozenset(options)))
        elif fstype == "cgroup2":
            found.append((2, point, root, frozenset()))
    return found


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code in ("\\040", "\\011", "\\012", "\\134"):
        field = field.replace(code, chr(int(code[1:], 8)))
    return field


def _inside_mount(point: str, root: str, path: str) -> str | None:
    """The folder of group `path` under a hierarchy mounted at `point` showing `root`."""
    root = root.rstrip("/")
    if root and not (path == root or path.startswith(root + "/")):
        return None
    return os.path.join(point, path[len(root):].lstrip("/"))


WANTED_V1 = ("memory", "pids", "cpu", "cpuacct")
WANTED_V2 = frozenset({"memory", "pids", "cpu"})


def hierarchies(groups: dict[str, str], mounts) -> list[Hierarchy]:
    """The places to make groups in: v1 hierarchies of the wanted controllers, else a v2
    group whose children get memory (the one piece that matters most)."""
    chosen, seen = [], set()
    for version, point, root, options in mounts:
        if version != 1:
            continue
        for controller in WANTED_V1:
            if controller in options and controller in groups and point not in seen:
                folder = _inside_mount(point, root, groups[controller])
                if folder and os.path.isdir(folder):
                    seen.add(point)
                    chosen.append(Hierarchy(1, folder, frozenset(options) & set(WANTED_V1)))
    if any("memory" in h.controllers for h in chosen):
        return chosen
    for version, point, root, _options in mounts:
        if version == 2 and "" in groups:
            folder = _inside_mount(point, root, groups[""])
            parent = folder and _v2_parent(folder, point)
            if parent:
                return [Hierarchy(2, parent, _v2_enabled(parent) & WANTED_V2)]
    return []


def _v2_enabled(folder: str) -> frozenset:
    try:
        with open(os.path.join(folder, "cgroup.subtree_control")) as control:
            return frozenset(control.read().split())
    except OSError:
        return frozenset()


def _v2_parent(folder: str, point: str) -> str | None:
    """The deepest group at or above our own whose children get the memory controller and
    that we may write (v2 allows no process in a group that hands out controllers, so our
    own group qualifies only when it is the root or delegated to us that way)."""
    while folder.startswith(point):
        if "memory" in _v2_enabled(folder) and os.access(folder, os.W_OK):
            return folder
        if folder.rstrip("/") == point.rstrip("/"):
            return None
        folder = os.path.dirname(folder)
    return None


# -- one agent's group -----------------------------------------------------------------------
class AgentGroup:
    """The folders (one per hierarchy) of one host's group."""

    def __init__(self, folders: list[tuple[Hierarchy | None, str]]):
        self.folders = folders
        # what the child writes between fork and exec: no allocation, only system calls
        self._procs = [os.path.join(folder, "cgroup.procs").encode() for _h, folder in folders]

    def enter(self) -> None:
        """Move the calling process into the group (its children follow it)."""
        for path in self._procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def cpu_counter(self) -> str | None:
        """The file that counts the CPU time of every process in the group: cpuacct.usage
        (v1, nanoseconds) or cpu.stat (v2, `usage_usec` first, there in every group)."""
        for hierarchy, folder in self.folders:
            if hierarchy is None:
                continue
            if hierarchy.version == 2:
                return os.path.join(folder, "cpu.stat")
            if "cpuacct" in hierarchy.controllers:
                return os.path.join(folder, "cpuacct.usage")
        return None

    def pids(self) -> set[int]:
        found: set[int] = set()
        for _hierarchy, folder in self.folders:
            try:
                with open(os.path.join(folder, "cgroup.procs")) as procs:
                    found.update(int(line) for line in procs if line.strip())
            except (OSError, ValueError):
                pass
        return found

    def remove(self, wait: float = 1.0) -> bool:
        """Kill what is left in it and remove it; False if it is still busy."""
        until = time.monotonic() + wait
        while True:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            left = []
            for hierarchy, folder in self.folders:
                try:
                    os.rmdir(folder)
                except FileNotFoundError:
                    pass
                except OSError:
                    left.append((hierarchy, folder))
            self.folders = left
            if not left:
                return True
            if time.monotonic() >= until:
                return False
            time.sleep(0.01)


@dataclass(frozen=True)
class Budget:
    memory: int | None
    processes: int | None
    cores: float | None = 1.0


def _settings(hierarchy: Hierarchy, budget: Budget) -> list[tuple[str, str]]:
    """(file, value) to write in a new group, in order."""
    wanted = []
    controllers = hierarchy.controllers
    if hierarchy.version == 1:
        if "memory" in controllers and budget.memory:
            wanted += [("memory.limit_in_bytes", str(budget.memory)),
                       ("memory.memsw.limit_in_bytes?", str(budget.memory))]
        if "pids" in controllers and budget.processes:
            wanted.append(("pids.max", str(budget.processes)))
        if "cpu" in controllers and budget.cores:
            wanted += [("cpu.cfs_period_us", str(CPU_PERIOD_US)),
                       ("cpu.cfs_quota_us", str(int(CPU_PERIOD_US * budget.cores)))]
    else:
        if "memory" in controllers and budget.memory:
            wanted += [("memory.max", str(budget.memory)), ("memory.swap.max?", "0")]
        if "pids" in controllers and budget.processes:
            wanted.append(("pids.max", str(budget.processes)))
        if "cpu" in controllers and budget.cores:
            wanted.append(("cpu.max", f"{int(CPU_PERIOD_US * budget.cores)} {CPU_PERIOD_US}"))
    return wanted


class Groups:
    """This monitor's groups: made on demand, removed when their host ends and at exit."""

    def __init__(self, found: list[Hierarchy]):
        self.hierarchies = found
        self._numbers = itertools.count()
        self._lock = threading.Lock()
        self._busy: list[AgentGroup] = []   # ended hosts whose group was not empty yet
        self._reaper: threading.Thread | None = None
        self._pid = os.getpid()

    @property
    def controllers(self) -> frozenset:
        return frozenset().union(*(h.controllers for h in self.hierarchies))

    def make(self, budget: Budget) -> AgentGroup:
        """A new group with the budget written in; OSError if the kernel refuses."""
        name = f"agent-{next(self._numbers)}"
        folders: list[tuple[Hierarchy | None, str]] = []
        try:
            for hierarchy in self.hierarchies:
                monitor = hierarchy.monitor_group()
                if not os.path.isdir(monitor):
                    os.makedirs(monitor, exist_ok=True)
                    if hierarchy.version == 2:
                        _write(monitor, "cgroup.subtree_control",
                               " ".join(f"+{c}" for c in sorted(hierarchy.controllers)))
                folder = os.path.join(monitor, name)
                os.mkdir(folder)
                folders.append((hierarchy, folder))
                for file, value in _settings(hierarchy, budget):
                    _write(folder, file, value)
        except OSError:
            AgentGroup(folders).remove(wait=0)
            raise
        return AgentGroup(folders)

    def release(self, group: AgentGroup) -> None:
        """The host ended: remove its group now or, while a process of it is still dying,
        from a background thread (never wait here: this runs in the middle of a game)."""
        if group.remove(wait=0):
            return
        with self._lock:
            self._busy.append(group)
            if self._reaper is None or not self._reaper.is_alive():
                self._reaper = threading.Thread(target=self._reap, daemon=True,
                                                name="pdharness-cgroup-reaper")
                self._reaper.start()

    def _reap(self) -> None:
        while True:
            time.sleep(0.02)
            with self._lock:
                pending, self._busy = self._busy, []
            still = [group for group in pending if not group.remove(wait=0)]
            with self._lock:
                self._busy += still
                if not self._busy:
                    self._reaper = None
                    return

    def remove_all(self) -> None:
        if os.getpid() != self._pid:  # a forked worker's exit: the groups are not its own
            return
        with self._lock:
            pending, self._busy = self._busy, []
        for group in pending:
            group.remove(wait=1.0)
        for hierarchy in self.hierarchies:
            remove_monitor_group(hierarchy.monitor_group())
        _remove_stale(self.hierarchies)


def _write(folder: str, file: str, value: str) -> None:
    optional = file.endswith("?")
    path = os.path.join(folder, file.rstrip("?"))
    if optional and not os.path.exists(path):
        return
    with open(path, "w") as out:
        out.write(value)


def remove_monitor_group(folder: str) -> None:
    """Remove a monitor's group and whatever agent groups are left in it."""
    try:
        children = [entry.path for entry in os.scandir(folder) if entry.is_dir()]
    except OSError:
        return
    for child in children:
        AgentGroup([(None, child)]).remove(wait=1.0)
    try:
        os.rmdir(folder)
    except OSError:
        pass


def _remove_stale(found: list[Hierarchy]) -> None:
    """Groups of monitors that are gone (killed before they could clean up)."""
    for hierarchy in found:
        try:
            entries = list(os.scandir(hierarchy.parent))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(PREFIX) and entry.is_dir():
                pid = entry.name[len(PREFIX):]
                if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                    remove_monitor_group(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


# -- can we, here? ---------------------------------------------------------------------------
_groups: Groups | None = None
_probed_in: int | None = None
_lock = threading.Lock()


def available() -> Groups | None:
    """This monitor's Groups if a group can be made and a process put in it, else None.
    Probed once per process (a forked worker probes again: groups are per monitor pid)."""
    global _groups, _probed_in
    with _lock:
        if _probed_in != os.getpid():
            _probed_in = os.getpid()
            _groups = _probe()
        return _groups


def _probe() -> Groups | None:
    if not os.path.isdir(CGROUP_ROOT):
        return None
    try:
        with open("/proc/self/cgroup") as own, open("/proc/self/mountinfo") as mounts:
            found = hierarchies(own_groups(own.read()), cgroup_mounts(mounts.read()))
    except OSError:
        return None
    if not any("memory" in h.controllers for h in found):
        return None
    _remove_stale(found)
    groups = Groups(found)
    try:
        group = groups.make(Budget(memory=64 << 20, processes=4))
    except OSError:
        for hierarchy in found:
            remove_monitor_group(hierarchy.monitor_group())
        return None
    try:
        works = _can_enter(group)
    finally:
        group.remove()
    if not works:
        groups.remove_all()
        return None
    atexit.register(groups.remove_all)
    return groups


def _can_enter(group: AgentGroup) -> bool:
    """Start a trivial process in the group, as hosts will be started."""
    try:
        subprocess.run(["/bin/true" if os.path.exists("/bin/true") else "true"],
                       preexec_fn=group.enter, timeout=10, check=True)
        return True
    except (OSError, subprocess.SubprocessError):
        return False
