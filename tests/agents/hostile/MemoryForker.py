"""Hostile: multiplies its memory by forking: a background thread starts 6 children, each
holding 200 MiB it has written to (1.2 GiB together, under a 1 GiB limit per process).
Answers D D D once all 6 hold theirs at the same time (more than the limit together), C C C
otherwise. The children end by themselves after 5 s."""
import os
import threading
import time

CHILDREN, SIZE = 6, 200 << 20
holding = []


def _child(write):
    try:
        block = bytearray(SIZE)
        block[::4096] = b"x" * len(block[::4096])
        os.write(write, b"y")
    except MemoryError:
        pass
    time.sleep(5)
    os._exit(0)


def _fork_all():
    notes = []
    for _ in range(CHILDREN):
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            _child(write)
        os.close(write)
        notes.append((pid, read))
    held = [pid for pid, read in notes if os.read(read, 1)]  # a killed child writes nothing
    time.sleep(0.2)
    # and one killed after it wrote (to make room for a later one) is not holding any more
    holding.extend(pid for pid in held if os.waitpid(pid, os.WNOHANG)[0] == 0)


threading.Thread(target=_fork_all, daemon=True).start()


def MemoryForker(hist, score):
    return ["D", "D", "D"] if len(holding) == CHILDREN else ["C", "C", "C"]
