"""Hostile: carries information from game to game in a pidfd's inode number, which counts
every process the machine ever started (pidfs, Linux 6.9): the process IDs' carrier again,
outside every PID namespace. Every call starts and joins threads (each moves the count), and
it plays the low bits of the inode of a pidfd for itself: from pidfd_open, else from its
socket's peer (SO_PEERPIDFD). A game may make no pidfd (harness/isolation/seccomp.py): it plays
the same in every game."""
import os
import socket
import threading

SO_PEERPIDFD = 77


def PidfsSpy_seen():
    try:
        fd = os.pidfd_open(os.getpid())
    except (OSError, AttributeError):
        try:
            one, other = socket.socketpair()
            fd = one.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD)
        except OSError:
            return 0
    try:
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)


def PidfsSpy(hist, score):
    if not hist:
        PidfsSpy.seen = PidfsSpy_seen()
    for _ in range(len(hist) % 5 + 1):
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
    return ["D" if PidfsSpy.seen >> bit & 1 else "C" for bit in range(3)]
