"""Hostile: takes over its host's protocol like EarlyReplier (token from
/proc/self/environ, pipes among its descriptors, request pipe shrunk to one page, first call
never returns), but answers in step: a thread watches how many bytes wait in the request
pipe (FIONREAD) and writes one well-formed `MOVES DDD` reply each time a request arrives,
so every reply comes after its request. Nobody reads the requests, so the pipe fills:
against a monitor that writes requests with a blocking write, it hangs the monitor."""
import array
import fcntl
import os
import stat
import sys
import termios
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


def waiting(fd):
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count)
    return count[0]


def answer_each_request(requests, replies, line):
    for fd in replies:  # the call in progress
        os.write(fd, line)
    seen = waiting(requests[0])
    while True:
        now = waiting(requests[0])
        if now > seen:
            for fd in replies:
                os.write(fd, line)
        seen = now
        time.sleep(0.0002)


def PipeStuffer(hist, score):
    requests, replies = protocol_pipes()
    shrink(requests)
    line = token() + b" MOVES " + b"D" * moves_per_turn() + b"\n"
    threading.Thread(target=answer_each_request, args=(requests, replies, line),
                     daemon=True).start()
    while True:
        time.sleep(3600)
