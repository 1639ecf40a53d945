"""Hostile: watches files every sandbox sees read-only, a way to hear other agents read them:
inotify on /usr/bin/env (move 1), dnotify on /usr/bin (move 2), a read lease on
/usr/bin/env (move 3, broken when another opens it for writing). Answers D on a move whose
watch the kernel accepted."""
import ctypes
import fcntl
import os
import platform

INOTIFY_INIT1 = {"x86_64": 294, "aarch64": 26}
INOTIFY_ADD_WATCH = {"x86_64": 254, "aarch64": 27}
IN_ACCESS, IN_OPEN = 0x1, 0x20
F_NOTIFY, DN_ACCESS, DN_MULTISHOT = 1026, 0x1, 0x80000000
F_SETLEASE = 1024


def _inotify():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.syscall(INOTIFY_INIT1.get(platform.machine(), -1), os.O_CLOEXEC)
    if fd < 0:
        return "C"
    try:
        watch = libc.syscall(INOTIFY_ADD_WATCH[platform.machine()], fd, b"/usr/bin/env",
                             IN_ACCESS | IN_OPEN)
        return "D" if watch >= 0 else "C"
    finally:
        os.close(fd)


def _fcntl(path, flags, command, argument):
    try:
        fd = os.open(path, flags)
    except OSError:
        return "C"
    try:
        fcntl.fcntl(fd, command, argument)
        return "D"
    except OSError:
        return "C"
    finally:
        os.close(fd)


def Watcher(hist, score):
    return [_inotify(),
            _fcntl("/usr/bin", os.O_RDONLY | os.O_DIRECTORY, F_NOTIFY,
                   DN_ACCESS | DN_MULTISHOT),
            _fcntl("/usr/bin/env", os.O_RDONLY, F_SETLEASE, fcntl.F_RDLCK)]
