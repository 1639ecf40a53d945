"""Hostile: stores memory where no per-process limit counts it: 8 MiB in a file in /dev/shm
(move 1), in a memfd (move 2), in a SysV shared memory segment that outlives its mapping
(move 3). Answers D on each move where the 8 MiB went in; cleans up after itself."""
import ctypes
import os
import platform

SIZE = 8 << 20
MEMFD_CREATE = {"x86_64": 319, "aarch64": 279}
SHMGET = {"x86_64": 29, "aarch64": 194}
IPC_PRIVATE, IPC_CREAT, IPC_RMID = 0, 0o1000, 0


def _dev_shm():
    # a name no other run's leftover can hold (a game killed mid-call leaves its file, owned
    # by that run's agent user, and a later process may get the same PID)
    path = f"/dev/shm/pdharness-hostile-{os.getpid()}-{os.urandom(6).hex()}"
    try:
        with open(path, "wb") as out:
            out.write(b"x" * SIZE)
        return "D"
    except OSError:
        return "C"
    finally:
        try:
            os.remove(path)
        except OSError:
            pass


def _memfd(libc):
    fd = libc.syscall(MEMFD_CREATE.get(platform.machine(), -1), b"hoard", 0)
    if fd < 0:
        return "C"
    try:
        return "D" if os.write(fd, b"x" * SIZE) == SIZE else "C"
    except OSError:
        return "C"
    finally:
        os.close(fd)


def _sysv(libc):
    segment = libc.syscall(SHMGET.get(platform.machine(), -1), IPC_PRIVATE, SIZE,
                           IPC_CREAT | 0o600)
    if segment < 0:
        return "C"
    libc.shmctl(segment, IPC_RMID, None)
    return "D"


def ShmHoarder(hist, score):
    libc = ctypes.CDLL(None, use_errno=True)
    return [_dev_shm(), _memfd(libc), _sysv(libc)]
