"""Hostile: looks in the kernel keyring for what KeyringCourier left there (a key named
pdharness-hostile-courier in its session or user keyring) and plays the moves it holds:
D D D when the message got through, C C C otherwise."""
import ctypes
import platform

NUMBERS = {"x86_64": 250, "aarch64": 219}   # keyctl
SESSION, USER = -3, -4
KEYCTL_SEARCH, KEYCTL_READ = 10, 11


def KeyringReceiver(hist, score):
    keyctl = NUMBERS.get(platform.machine(), -1)
    libc = ctypes.CDLL(None, use_errno=True)
    for ring in (SESSION, USER):
        key = libc.syscall(keyctl, KEYCTL_SEARCH, ring, b"user", b"pdharness-hostile-courier", 0)
        if key >= 0:
            buffer = ctypes.create_string_buffer(3)
            if libc.syscall(keyctl, KEYCTL_READ, key, buffer, 3) == 3:
                return list(buffer.raw.decode("ascii", "replace"))
    return ["C", "C", "C"]
