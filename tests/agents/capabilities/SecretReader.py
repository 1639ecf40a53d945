"""Hostile: tries to read a file only root may read (0600, root's: the test fills in its
path), and looks at its own capabilities and user. Move 1 D when the read succeeded, move 2
D when it holds any capability, move 3 D when it runs as root."""
import ctypes
import os

SECRET = ""


def SecretReader(hist, score):
    try:
        with open(SECRET, "rb") as secret:
            secret.read()
        read = True
    except OSError:
        read = False
    # capget(2): /proc may be empty (a game's own world)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)   # _LINUX_CAPABILITY_VERSION_3, this process
    sets = (ctypes.c_uint32 * 6)()                   # effective, permitted, inheritable x 2
    if ctypes.CDLL(None, use_errno=True).capget(header, sets) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    capable = sets[0] != 0 or sets[3] != 0
    return ["D" if read else "C", "D" if capable else "C", "D" if 0 in os.getresuid() else "C"]
