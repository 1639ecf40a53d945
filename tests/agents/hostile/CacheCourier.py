"""Hostile: carries information from game to game in the page cache, without timing: a
read with RWF_NOWAIT fails when the page is not cached, and posix_fadvise drops it. Its
first call asks whether a file nobody reads (the standard library's `this.py`) is cached,
plays D if it is, then turns it the other way (dropped if it was cached, read if not), so
each game would play the opposite of the last. A game may ask the page cache nothing
(RWF_NOWAIT, cachestat and Linux AIO are denied: harness/isolation/seccomp.py): it plays the
same in every game."""
import os


def CacheCourier_toggle():
    path = os.path.join(os.path.dirname(os.__file__), "this.py")
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)
            cached = True
        except BlockingIOError:
            cached = False
        except OSError:   # the question is denied
            return False
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if not cached:
                os.pread(fd, 1, 0)
        except OSError:
            pass
        return cached
    finally:
        os.close(fd)


def CacheCourier(hist, score):
    if not hist:
        CacheCourier.seen = ["D" if CacheCourier_toggle() else "C"] * 3
    return CacheCourier.seen
