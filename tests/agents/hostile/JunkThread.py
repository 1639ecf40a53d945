"""Hostile: answers every call at once with C C C, but a thread it starts writes lines
that are not replies (no token, empty) into the host's reply pipe (found in
its descriptors) as fast as it can, between and during calls: the monitor must not spend
its time reading them, nor let them delay the other games."""
import fcntl
import os
import stat
import threading

STARTED = []


def reply_pipes():
    found = []
    for fd in range(3, 1024):   # its descriptors, found without /proc
        try:
            if (fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode)
                    and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY):
                found.append(fd)
        except OSError:
            pass
    return found


def flood(pipes):
    junk = b"MOVES DDD\n\n0123456789abcdef MOVES DDD\n" * 1000
    while True:
        for fd in pipes:
            try:
                os.write(fd, junk)
            except OSError:
                return


def JunkThread(hist, score):
    if not STARTED:
        STARTED.append(threading.Thread(target=flood, args=(reply_pipes(),), daemon=True))
        STARTED[0].start()
    return ["C", "C", "C"]
