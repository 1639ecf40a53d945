"""Hostile: takes over its host's protocol. It finds the secret token (the host removed it
from the environment, but /proc/self/environ still shows the environment the process
started with) and the protocol's pipes (its descriptors), shrinks the request pipe to one
page with F_SETPIPE_SZ, and from a thread writes well-formed `MOVES DDD` replies ahead of
time, as fast as the monitor takes them, while its first call never returns: the host
never reads another request. Against a monitor that writes requests with a blocking write
and takes any marked line as the answer, it plays D D D on every turn without being asked
and, once the request pipe is full, hangs the monitor for ever."""
import fcntl
import os
import stat
import sys
import threading
import time

F_SETPIPE_SZ = 1031


def token():
    try:   # no /proc in a game's world (harness/isolation/world.py): then no token either
        with open("/proc/self/environ", "rb") as environ:
            for entry in environ.read().split(b"\0"):
                if entry.startswith(b"PDH_TOKEN="):
                    return entry[len(b"PDH_TOKEN="):]
    except OSError:
        pass
    return b""


def protocol_pipes():
    """(request fds, reply fds): the pipes other than stdin, stdout and stderr."""
    requests, replies = [], []
    for fd in range(3, 1024):   # its descriptors, found without /proc
        try:
            if fd <= 2 or not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        except OSError:
            continue
        (requests if mode == os.O_RDONLY else replies).append(fd)
    return requests, replies


def moves_per_turn():
    """Read from the host's own state, up the call stack."""
    frame = sys._getframe()
    while frame is not None:
        runtime = frame.f_locals.get("runtime")
        if runtime is not None and hasattr(runtime, "moves_per_turn"):
            return runtime.moves_per_turn
        frame = frame.f_back
    return 3


def shrink(fds):
    for fd in fds:
        try:
            fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
        except OSError:
            pass


def write_replies(fds, line):
    while True:
        for fd in fds:
            try:
                os.write(fd, line)
            except OSError:
                return


def EarlyReplier(hist, score):
    requests, replies = protocol_pipes()
    shrink(requests)
    line = token() + b" MOVES " + b"D" * moves_per_turn() + b"\n"
    threading.Thread(target=write_replies, args=(replies, line), daemon=True).start()
    while True:
        time.sleep(3600)
