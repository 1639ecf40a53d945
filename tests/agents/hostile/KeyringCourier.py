"""Hostile: passes data to another agent (KeyringReceiver) through the kernel keyring, which
namespaces do not separate: adds a key to its session and user keyrings. Answers D on move 1
when a key went in, D on move 2 when it could read its session keyring (the monitor's,
unless the host has a keyring of its own or keyctl is denied), C otherwise."""
import ctypes
import platform

NUMBERS = {"x86_64": (248, 250), "aarch64": (217, 219)}   # add_key, keyctl
SESSION, USER = -3, -4
KEYCTL_DESCRIBE = 6
NAME = b"pdharness-hostile-courier"


def KeyringCourier(hist, score):
    add_key, keyctl = NUMBERS.get(platform.machine(), (-1, -1))
    libc = ctypes.CDLL(None, use_errno=True)
    added = [libc.syscall(add_key, b"user", NAME, b"DDD", 3, ring) >= 0
             for ring in (SESSION, USER)]
    buffer = ctypes.create_string_buffer(256)
    described = libc.syscall(keyctl, KEYCTL_DESCRIBE, SESSION, buffer, 256) >= 0
    return ["D" if any(added) else "C", "D" if described else "C", "C"]
