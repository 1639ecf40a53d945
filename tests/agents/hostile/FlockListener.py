"""Hostile: listens for FlockSignaller: asks the kernel whether anyone holds a lock on
/usr/bin/env (a file every sandbox sees read-only). Answers D on move 1 when an flock is held
elsewhere, on move 2 when a POSIX lock is, on move 3 when an open-file-description lock is."""
import errno
import fcntl
import struct

F_OFD_GETLK = 36
LOCK = "hhqqi4x"   # struct flock on 64-bit Linux


def _flock_held(shared):
    try:
        fcntl.flock(shared, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(shared, fcntl.LOCK_UN)
        return "C"
    except OSError as error:
        return "D" if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN) else "C"


def _lock_seen(shared, command):
    try:
        answer = fcntl.fcntl(shared, command, struct.pack(LOCK, fcntl.F_WRLCK, 0, 0, 0, 0))
    except OSError:
        return "C"
    return "C" if struct.unpack(LOCK, answer)[0] == fcntl.F_UNLCK else "D"


def FlockListener(hist, score):
    with open("/usr/bin/env", "rb") as shared:
        return [_flock_held(shared), _lock_seen(shared, fcntl.F_GETLK),
                _lock_seen(shared, F_OFD_GETLK)]
