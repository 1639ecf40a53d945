"""Hostile: from its call, writes newlines without end into the host's reply pipe (found
among its descriptors) and never returns. Against a monitor that checks its deadline only when
no data arrives, and re-slices its buffer for every line, this keeps the monitor reading
for ever at full CPU while the agent shows no fault."""
import fcntl
import os
import stat


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


def NewlineFlooder(hist, score):
    pipes = reply_pipes()
    flood = b"\n" * 65536
    while True:
        for fd in pipes:
            os.write(fd, flood)
