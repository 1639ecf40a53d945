"""Seccomp filters for agent processes, as classic BPF built here (no compiler, no binding).

Namespaces, a private /tmp and a user id of its own keep an agent from the monitor's files
and processes, but some kernel objects are shared by the whole machine whatever the
namespaces: the kernel keyring, locks and inotify watches on files every sandbox sees
read-only (/usr/bin/env), and memory no resource limit counts (SysV shared memory, memfd).
`BASE` denies those system calls, plus the ones that reach other processes or widen the
kernel's attack surface (ptrace, namespaces, mounts, perf, userfaultfd, io_uring, bpf).
Agents need none of them; Python, Hy and SBCL start and play with all of them denied.
Sockets are held to the families an agent can need (`AF_UNIX`, and only inside the
sandbox's namespaces; see `AF_UNIX`).

Two programs, stacked. The host's process runs under `program(host=True)`, which lets it
make namespaces and mount in them: it builds every game a new world (harness/isolation/world.py),
change its own descriptors' flags and watch its games through pidfds.
Each process that runs agent code then adds `program()`, which denies those too (a game
shares descriptors with the next: see `FCNTL_SHARED_STATE`, `CLONE_PIDFD`), once its
world is built and before any agent code runs (the host is told it in `GAME_FILTER`, hex).
`no_fork` adds fork, vfork and clone without CLONE_THREAD: where no cgroup holds an agent's
processes together (harness/isolation/cgroups.py), per-process limits only hold per agent when the
agent has one process.

A denied call fails with EPERM (ENOSYS for clone3, whose flags a filter cannot read, so
that the C library falls back to clone, which it can); a call made with another
architecture's numbers (int 0x80 on x86_64, x32) fails with ENOSYS.
"""
from __future__ import annotations

import ctypes
import errno
import os
import struct

# seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little-endian)
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    """Offset of the low 32 bits of argument `index` (the kernel reads int flags there)."""
    return 16 + 8 * index


# classic BPF opcodes
_LOAD = 0x20       # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15        # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35        # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45       # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06        # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_X32_BIT = 0x40000000

CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
                    | 0x20000000 | 0x40000000)  # NEWNS CGROUP UTS IPC USER PID NET
FCNTL_LOCKS_AND_WATCHES = (5, 6, 7, 36, 37, 38,      # F_GETLK F_SETLK F_SETLKW F_OFD_*
                           1024, 1025, 1026)          # F_SETLEASE F_GETLEASE F_NOTIFY
# What a game's process may not change of an open file description: a game inherits some
# from the zygote (/dev/null on fd 0, the pipes of its output and of the game channel), the
# same ones every game, so a flag or number set on one in a game is there in the next
# (a carrier from game to game). Per description: the status flags (F_SETFL, and the ioctls
# FIONBIO and FIOASYNC that set O_NONBLOCK and O_ASYNC), the owner and signal of O_ASYNC
# (F_SETOWN, F_SETOWN_EX, F_SETSIG); per pipe: its size (F_SETPIPE_SZ). Denied in games
# only: the host sets up its own descriptors before any agent code runs.
FCNTL_SHARED_STATE = (4, 8, 10, 15, 1031,   # F_SETFL F_SETOWN F_SETSIG F_SETOWN_EX F_SETPIPE_SZ
                      1036, 1038)            # F_SET_RW_HINT F_SET_FILE_RW_HINT (see INODES)
IOCTL_SHARED_STATE = (0x5421, 0x5452)        # FIONBIO FIOASYNC
# A pidfd's inode number is the kernel's count of processes ever started on the machine
# (pidfs, Linux 6.9): the process IDs' carrier again, outside every PID namespace. Games may
# make no pidfd: pidfd_open, clone's CLONE_PIDFD, and a socket's SO_PEERPIDFD/SO_PASSPIDFD.
CLONE_PIDFD = 0x00001000
# The page cache is the machine's: a read with RWF_NOWAIT fails when a page is not cached,
# cachestat counts them, and Linux AIO takes RWF_NOWAIT inside its iocbs (where no filter
# can read it). A game that could ask would read, without timing anything, what the last
# game (or another agent) left cached or dropped (posix_fadvise) in a file all see.
RWF_NOWAIT = 0x00000008
# A game's agent owns what its monitor's user owns when that user is not root (the sandbox
# maps the agent's user to it): the pipes every game inherits, and the harness's files
# (mounted read-only, yet an inode's write-life hint needs no write, and mincore shows the
# page cache of a file its caller could write). What a game could set on such an inode and
# the next read: its mode, owner and times through a descriptor (fchmod, fchown, futimens,
# which is utimensat without a path, and fchownat, fchmodat2 and utimensat with
# AT_EMPTY_PATH, futimesat), its write-life hint (FCNTL_SHARED_STATE), which of its pages
# are cached (mincore). By path a game changes only its own /tmp: the rest is read-only.
INODES = ["fchmod", "fchown", "futimesat", "mincore"]
AT_EMPTY_PATH = 0x1000
BY_DESCRIPTOR_FLAGS = {"utimensat": 3, "fchownat": 4, "fchmodat2": 3}  # the flags' argument
SOL_SOCKET, SOCKET_PIDFD_OPTIONS = 1, (76, 77)   # SO_PASSPIDFD, SO_PEERPIDFD

ARCHITECTURES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}  # AUDIT_ARCH_*
_NUMBERS = {  # name: (x86_64, aarch64); aarch64 has no fork, vfork, inotify_init
    "fork": (57, None), "vfork": (58, None), "clone": (56, 220), "clone3": (435, 435),
    "fcntl": (72, 25), "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218),
    "flock": (73, 32), "inotify_init": (253, None), "inotify_init1": (294, 26),
    "inotify_add_watch": (254, 27), "fanotify_init": (300, 262), "fanotify_mark": (301, 263),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "kcmp": (312, 272), "unshare": (272, 97), "setns": (308, 268), "mount": (165, 40),
    "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51),
    "open_tree": (428, 428), "move_mount": (429, 429), "fsopen": (430, 430),
    "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433),
    "mount_setattr": (442, 442), "perf_event_open": (298, 241), "userfaultfd": (323, 282),
    "bpf": (321, 280), "syslog": (103, 116), "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "name_to_handle_at": (303, 264), "open_by_handle_at": (304, 265),
    "memfd_create": (319, 279), "memfd_secret": (447, 447), "shmget": (29, 194),
    "shmat": (30, 196), "shmctl": (31, 195), "semget": (64, 190), "semop": (65, 193),
    "semctl": (66, 191), "semtimedop": (220, 192), "msgget": (68, 186), "msgsnd": (69, 189),
    "msgrcv": (70, 188), "msgctl": (71, 187), "mq_open": (240, 180), "mq_unlink": (241, 181),
    "mq_timedsend": (242, 182), "mq_timedreceive": (243, 183), "mq_notify": (244, 184),
    "mq_getsetattr": (245, 185), "socket": (41, 198), "socketpair": (53, 199),
    "pidfd_open": (434, 434), "ioctl": (16, 29), "getsockopt": (55, 209),
    "setsockopt": (54, 208), "preadv2": (327, 286), "pwritev2": (328, 287),
    "cachestat": (451, 451), "io_setup": (206, 0), "io_submit": (209, 2),
    "fchmod": (91, 52), "fchown": (93, 55), "futimesat": (261, None), "mincore": (27, 232),
    "utimensat": (280, 88), "fchownat": (260, 54), "fchmodat2": (452, 452),
}

# what every agent process is denied, by why
SHARED_BETWEEN_SANDBOXES = ["keyctl", "add_key", "request_key", "flock", "inotify_init",
                            "inotify_init1", "inotify_add_watch", "fanotify_init",
                            "fanotify_mark"]
UNCOUNTED_MEMORY = ["memfd_create", "memfd_secret", "shmget", "shmat", "shmctl", "semget",
                    "semop", "semctl", "semtimedop", "msgget", "msgsnd", "msgrcv", "msgctl",
                    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
                    "mq_getsetattr"]
OTHER_PROCESSES_AND_KERNEL = ["ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
                              "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
                              "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
                              "fspick", "mount_setattr", "perf_event_open", "userfaultfd",
                              "bpf", "syslog", "io_uring_setup", "io_uring_enter",
                              "io_uring_register", "name_to_handle_at", "open_by_handle_at"]
PAGE_CACHE_QUESTIONS = ["cachestat", "io_setup", "io_submit"]
FORKING = ["fork", "vfork"]
GAME_ONLY = ["pidfd_open"] + INODES   # the host watches its games' processes through pidfds
# what the host itself needs to build each game a new world (harness/isolation/world.py): allowed in
# the host's program, denied again in every game's
BUILDING_WORLDS = ["unshare", "setns", "mount"]

# socket(2) and socketpair(2) take only these address families (their first argument):
# AF_UNIX where the agent has namespaces of its own (the sandbox: its own network
# namespace, so no abstract socket of the machine's, and only the files it sees), none
# otherwise. Every other family is how a process leaves its namespaces: AF_VSOCK reaches
# the hypervisor whatever the network namespace, AF_NETLINK the kernel, AF_INET/AF_INET6
# and AF_PACKET the network wherever there is one. Refused with EAFNOSUPPORT, as for a
# family the kernel lacks, so a runtime that probes one takes its usual way round.
AF_UNIX = 1


class Unsupported(Exception):
    """No filter for this machine's architecture."""


def architecture() -> str:
    machine = os.uname().machine.lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    if machine not in ARCHITECTURES:
        raise Unsupported(f"no seccomp filter for {machine or 'this architecture'}")
    return machine


class _Program:
    """A classic BPF program with forward jumps to labels."""

    def __init__(self):
        self.code: list[list] = []   # [opcode, jump-if-true, jump-if-false, k]
        self.labels: dict[str, int] = {}

    def emit(self, opcode, k=0, true=0, false=0):
        self.code.append([opcode, true, false, k])

    def label(self, name):
        self.labels[name] = len(self.code)

    def new_label(self) -> str:
        return f"_{len(self.labels)}_{len(self.code)}"

    def assemble(self) -> bytes:
        out = []
        for at, (opcode, true, false, k) in enumerate(self.code):
            out.append(struct.pack("=HBBI", opcode, self._offset(true, at),
                                   self._offset(false, at), k))
        return b"".join(out)

    def _offset(self, target, at) -> int:
        if isinstance(target, int):
            return target
        offset = self.labels[target] - at - 1
        if not 0 <= offset <= 255:
            raise ValueError(f"jump to {target} out of reach")
        return offset


_LEAF = 4   # numbers a leaf of the search tree compares one by one


def _dispatch(p: _Program, table: dict[int, str], numbers: list[int]) -> None:
    """Jump to `table[nr]` for each of the sorted `numbers`, allow any other: a search tree,
    so that an allowed call passes about ten instructions, not one for every number named.
    The kernel runs the program once for every system call number as it installs it (to
    learn which calls it may allow without running it), and a game's process installs
    one: a straight list of comparisons cost a game's process about 60 us more."""
    if len(numbers) <= _LEAF:
        for number in numbers:
            p.emit(_JEQ, number, table[number], 0)
        p.emit(_RET, _ALLOW)
        return
    middle = len(numbers) // 2
    upper = p.new_label()
    p.emit(_JGE, numbers[middle], upper, 0)
    _dispatch(p, table, numbers[:middle])
    p.label(upper)
    _dispatch(p, table, numbers[middle:])


def _table(numbers: dict[str, int], denied: list[str], host: bool) -> dict[int, str]:
    """System call number -> the label of what the program does with it."""
    table = {numbers[name]: "eperm" for name in denied if name in numbers}
    checked = {"clone3": "enosys", "socket": "socket_family", "socketpair": "socket_family",
               "fcntl": "fcntl", "preadv2": "rw_flags", "pwritev2": "rw_flags",
               "clone": "clone"}
    if not host:
        checked |= {"ioctl": "ioctl", "getsockopt": "sockopt", "setsockopt": "sockopt"}
        checked |= {name: name for name in BY_DESCRIPTOR_FLAGS}
    for name, label in checked.items():
        assert numbers[name] not in table, f"{name} is both denied and checked"
        table[numbers[name]] = label
    return table


def program(no_fork: bool = False, machine: str | None = None, unix_sockets: bool = True,
            host: bool = False) -> bytes:
    """The filter as the kernel (and bwrap's --seccomp) takes it: struct sock_filter[].
    `unix_sockets`: AF_UNIX allowed (only where the agent has namespaces of its own).
    `host`: the host process's own, which may build game worlds (see the module's text)."""
    machine = machine or architecture()
    column = list(ARCHITECTURES).index(machine)
    numbers = {name: number for name, pair in _NUMBERS.items()
               if (number := pair[column]) is not None}
    denied = (SHARED_BETWEEN_SANDBOXES + UNCOUNTED_MEMORY + OTHER_PROCESSES_AND_KERNEL
              + PAGE_CACHE_QUESTIONS)
    if host:
        denied = [name for name in denied if name not in BUILDING_WORLDS]
    else:
        denied = denied + GAME_ONLY
    if no_fork:
        denied = denied + FORKING
    table = _table(numbers, denied, host)
    p = _Program()
    p.emit(_LOAD, _ARCH)
    p.emit(_JEQ, ARCHITECTURES[machine], 0, "enosys")
    p.emit(_LOAD, _NR)
    if machine == "x86_64":
        p.emit(_JGE, _X32_BIT, "enosys", 0)
    _dispatch(p, table, sorted(table))
    p.label("fcntl")
    p.emit(_LOAD, _arg(1))
    for command in FCNTL_LOCKS_AND_WATCHES + (() if host else FCNTL_SHARED_STATE):
        p.emit(_JEQ, command, "eperm", 0)
    p.emit(_RET, _ALLOW)
    p.label("clone")
    p.emit(_LOAD, _arg(0))            # clone(flags, ...) on both architectures
    p.emit(_JSET, CLONE_NAMESPACES | (0 if host else CLONE_PIDFD), "eperm", 0)
    if no_fork:
        p.emit(_JSET, CLONE_THREAD, 0, "eperm")
    p.emit(_RET, _ALLOW)
    p.label("rw_flags")               # p(read|write)v2(fd, iov, count, pos_l, pos_h, flags)
    p.emit(_LOAD, _arg(5))
    p.emit(_JSET, RWF_NOWAIT, "eperm", 0)
    p.emit(_RET, _ALLOW)
    if not host:
        p.label("ioctl")
        p.emit(_LOAD, _arg(1))        # ioctl(fd, request, ...): request is 32 bits
        for request in IOCTL_SHARED_STATE:
            p.emit(_JEQ, request, "eperm", 0)
        p.emit(_RET, _ALLOW)
        p.label("sockopt")            # (get|set)sockopt(fd, level, name, ...)
        p.emit(_LOAD, _arg(1))
        p.emit(_JEQ, SOL_SOCKET, 0, "allow_option")
        p.emit(_LOAD, _arg(2))
        for option in SOCKET_PIDFD_OPTIONS:
            p.emit(_JEQ, option, "eperm", 0)
        p.label("allow_option")
        p.emit(_RET, _ALLOW)
        for name, flags in BY_DESCRIPTOR_FLAGS.items():   # (dirfd, path, ..., flags)
            p.label(name)
            p.emit(_LOAD, _arg(flags))
            p.emit(_JSET, AT_EMPTY_PATH, "eperm", 0)
            if name == "utimensat":       # no path at all: the descriptor's own inode
                p.emit(_LOAD, _arg(1))
                p.emit(_JEQ, 0, 0, "allow_path")
                p.emit(_LOAD, _arg(1) + 4)
                p.emit(_JEQ, 0, "eperm", 0)
                p.label("allow_path")
            p.emit(_RET, _ALLOW)
    p.label("socket_family")
    if unix_sockets:
        p.emit(_LOAD, _arg(0))        # socket(domain, ...), socketpair(domain, ...)
        p.emit(_JEQ, AF_UNIX, 0, "eafnosupport")
        p.emit(_RET, _ALLOW)
    p.label("eafnosupport")
    p.emit(_RET, _ERRNO | errno.EAFNOSUPPORT)
    p.label("eperm")
    p.emit(_RET, _ERRNO | errno.EPERM)
    p.label("enosys")
    p.emit(_RET, _ERRNO | errno.ENOSYS)
    return p.assemble()


# -- installing a filter in the calling process ---------------------------------------------
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 0x1, 0x1
_SECCOMP_SYSCALL = {"x86_64": 317, "aarch64": 277}


def installer(code: bytes):
    """A function of no arguments that installs `code` in the process that calls it, for
    all its threads (TSYNC: a thread started before, SBCL's finalizer say, is no way out).

    Everything is prepared here, so the returned function only makes two system calls: it
    can run between fork and exec (subprocess's preexec_fn) or in a freshly forked game
    process. It raises OSError when the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    prctl, syscall = libc.prctl, libc.syscall
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
    syscall.argtypes = [ctypes.c_long, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_void_p]
    number = _SECCOMP_SYSCALL[architecture()]
    buffer = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    pointer = ctypes.cast(ctypes.pointer(fprog), ctypes.c_void_p)

    def install():
        keep = (buffer, fprog)  # noqa: F841 - alive as long as this function
        if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or syscall(
                number, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC, pointer) != 0:
            failure = ctypes.get_errno()
            raise OSError(failure, f"seccomp: {errno.errorcode.get(failure, failure)}")

    return install


GAME_FILTER = "PDH_GAME_FILTER"   # the monitor's instruction to a host: the program, hex


def game_filter(environ=None):
    """For a host, once, before it forks: takes `GAME_FILTER` (what the monitor wants every
    process that runs agent code to run under: `program()`, with `no_fork` where no cgroup
    holds the agent's processes) out of the environment, and returns the function that,
    called in such a process once its world is built, installs it. None where the monitor
    gave none (no filter for this machine). Prepared here, so the call in the child costs
    two system calls; it raises OSError if the kernel refuses."""
    environ = os.environ if environ is None else environ
    code = environ.pop(GAME_FILTER, "")
    return installer(bytes.fromhex(code)) if code else None
