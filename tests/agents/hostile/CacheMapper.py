"""Hostile: carries a bit from game to game in the page cache of a file its monitor's user
owns (the harness's seccomp.py), read without timing anything: mincore(2) says which pages
of a mapped file are cached, for a file the caller could write (an agent owns what its
monitor's user owns when that user is not root). Its first call plays D if the file's third
page is cached, then drops it (posix_fadvise) or reads it, to say the opposite to the next
game. A game may not call mincore (harness/isolation/seccomp.py): it plays the same in
every game."""
import ctypes
import mmap
import os
import sys

# the host's own package, which agents may not import (harness/agents/agent_imports.py),
# but whose modules they find in sys.modules, and whose files are where the host runs from
harness = sys.modules["harness"]
HARNESS_FILE = os.path.join(os.path.dirname(harness.__file__), "isolation", "seccomp.py")
PAGE = mmap.PAGESIZE


def CacheMapper_cached(fd):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    address = libc.mmap(None, 4 * PAGE, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    pages = (ctypes.c_ubyte * 4)()
    return libc.mincore(ctypes.c_void_p(address), 4 * PAGE, pages) == 0 and pages[2] & 1


def CacheMapper(hist, score):
    if not hist:
        fd = os.open(HARNESS_FILE, os.O_RDONLY)
        try:
            cached = CacheMapper_cached(fd)
            if cached:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            else:
                os.pread(fd, 1, 2 * PAGE)
        finally:
            os.close(fd)
        CacheMapper.seen = ["D" if cached else "C"] * 3
    return CacheMapper.seen
