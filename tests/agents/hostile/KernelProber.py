"""Hostile: reaches for the kernel beyond its sandbox: a new user namespace (where it would
be root, able to mount; move 1), the memory of its parent process (process_vm_readv, then
ptrace; move 2), perf events and userfaultfd (move 3). Answers D on each move where the
kernel let it. It only reads, never stops or changes another process."""
import ctypes
import os
import platform
import struct

NUMBERS = {"x86_64": {"unshare": 272, "process_vm_readv": 310, "perf_event_open": 298,
                      "userfaultfd": 323},
           "aarch64": {"unshare": 97, "process_vm_readv": 270, "perf_event_open": 241,
                       "userfaultfd": 282}}
CLONE_NEWUSER = 0x10000000
UFFD_USER_MODE_ONLY = 1


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def _parent_memory(libc, numbers):
    with open(f"/proc/{os.getppid()}/maps") as maps:  # somewhere mapped in the parent
        start = int(maps.readline().split("-")[0], 16)
    buffer = ctypes.create_string_buffer(16)
    mine, theirs = IoVec(ctypes.addressof(buffer), 16), IoVec(start, 16)
    read = libc.syscall(numbers["process_vm_readv"], os.getppid(), ctypes.byref(mine), 1,
                        ctypes.byref(theirs), 1, 0)
    return read > 0


def _new_namespace(libc, numbers):
    """In a child: the host itself must stay where it is."""
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid == 0:
        os._exit(0 if libc.syscall(numbers["unshare"], CLONE_NEWUSER) == 0 else 1)
    return os.waitpid(pid, 0)[1] == 0


def _perf_event(libc, numbers):
    """Counting its own CPU clock: allowed to every user unless perf is denied."""
    attr = struct.pack("IIQQQQQ", 1, 128, 0, 0, 0, 0, (1 << 5) | (1 << 6)).ljust(128, b"\0")
    return libc.syscall(numbers["perf_event_open"], attr, 0, -1, -1, 0)


def KernelProber(hist, score):
    numbers = NUMBERS.get(platform.machine())
    if numbers is None:
        return ["C", "C", "C"]
    libc = ctypes.CDLL(None, use_errno=True)
    namespace = _new_namespace(libc, numbers)
    try:
        parent = _parent_memory(libc, numbers)
    except (OSError, ValueError):
        parent = False
    perf = _perf_event(libc, numbers)
    fault = libc.syscall(numbers["userfaultfd"], UFFD_USER_MODE_ONLY)
    for fd in (perf, fault):
        if fd >= 0:
            os.close(fd)
    return ["D" if namespace else "C", "D" if parent else "C",
            "D" if perf >= 0 or fault >= 0 else "C"]
