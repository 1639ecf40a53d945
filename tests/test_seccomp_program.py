"""The seccomp programs, read as the kernel reads them: a classic BPF interpreter runs each
program on system calls and their arguments, and its verdict must be the one the filter's
rules give (harness/isolation/seccomp.py's lists), for every architecture and every kind
of program. The kernel's own verdicts, on this machine, are in test_confinement.py.
"""
from __future__ import annotations

import errno
import struct

import pytest
from hypothesis import given, settings, strategies as st

from harness.isolation import seccomp

ALLOW = 0x7FFF0000


def run(code: bytes, nr: int, arch: int, args: tuple[int, ...]) -> int:
    """What the program returns for seccomp_data(nr, arch, args)."""
    return trace(code, nr, arch, args)[0]


def trace(code: bytes, nr: int, arch: int, args: tuple[int, ...]) -> tuple[int, int]:
    """What the program returns, and how many instructions it ran to return it: the kernel's
    semantics of the five instructions the programs use; a program that runs off its end
    fails here as the kernel would refuse it."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *args)
    instructions = [struct.unpack_from("=HBBI", code, at) for at in range(0, len(code), 8)]
    accumulator, pc, steps = 0, 0, 0
    while True:
        assert 0 <= pc < len(instructions), "the program ran off its end"
        steps += 1
        opcode, true, false, k = instructions[pc]
        if opcode == 0x20:                                   # ld [k]
            (accumulator,) = struct.unpack_from("<I", data, k)
            pc += 1
        elif opcode in (0x15, 0x35, 0x45):                   # jeq, jge, jset #k
            taken = {0x15: accumulator == k, 0x35: accumulator >= k,
                     0x45: accumulator & k != 0}[opcode]
            pc += 1 + (true if taken else false)
        elif opcode == 0x06:                                 # ret #k
            return k, steps
        else:
            raise AssertionError(f"unexpected opcode {opcode:#x}")


def expected(machine: str, name: str | None, args: tuple[int, ...], *, host: bool,
             no_fork: bool, unix_sockets: bool) -> int:
    """The rules, as the module's text and lists state them."""
    eperm, low = 0x00050000 | errno.EPERM, [arg & 0xFFFFFFFF for arg in args]
    denied = (seccomp.SHARED_BETWEEN_SANDBOXES + seccomp.UNCOUNTED_MEMORY
              + seccomp.OTHER_PROCESSES_AND_KERNEL + seccomp.PAGE_CACHE_QUESTIONS)
    denied = ([name for name in denied if name not in seccomp.BUILDING_WORLDS] if host
              else denied + seccomp.GAME_ONLY) + (seccomp.FORKING if no_fork else [])
    if name in denied:
        return eperm
    if name == "clone3":
        return 0x00050000 | errno.ENOSYS
    if name in ("socket", "socketpair"):
        return (ALLOW if unix_sockets and low[0] == seccomp.AF_UNIX
                else 0x00050000 | errno.EAFNOSUPPORT)
    locks = seccomp.FCNTL_LOCKS_AND_WATCHES + (() if host else seccomp.FCNTL_SHARED_STATE)
    if name == "fcntl" and low[1] in locks:
        return eperm
    if name in ("preadv2", "pwritev2") and low[5] & seccomp.RWF_NOWAIT:
        return eperm
    if name == "clone":
        refused = seccomp.CLONE_NAMESPACES | (0 if host else seccomp.CLONE_PIDFD)
        if low[0] & refused or (no_fork and not low[0] & seccomp.CLONE_THREAD):
            return eperm
    if host:
        return ALLOW
    if name == "ioctl" and low[1] in seccomp.IOCTL_SHARED_STATE:
        return eperm
    if (name in ("getsockopt", "setsockopt") and low[1] == seccomp.SOL_SOCKET
            and low[2] in seccomp.SOCKET_PIDFD_OPTIONS):
        return eperm
    if name in seccomp.BY_DESCRIPTOR_FLAGS:
        if low[seccomp.BY_DESCRIPTOR_FLAGS[name]] & seccomp.AT_EMPTY_PATH:
            return eperm
        if name == "utimensat" and args[1] == 0:
            return eperm
    return ALLOW


KINDS = [dict(host=host, no_fork=no_fork, unix_sockets=unix_sockets)
         for host in (False, True) for no_fork in (False, True) for unix_sockets in (False, True)]


def names(machine: str) -> dict[int, str]:
    column = list(seccomp.ARCHITECTURES).index(machine)
    return {pair[column]: name for name, pair in seccomp._NUMBERS.items()
            if pair[column] is not None}


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHITECTURES))
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: "-".join(k for k, v in kind.items() if v)
                         or "game")
def test_every_system_call_number_gets_the_rules_verdict(machine, kind):
    """Every number up to past the last one named, with no arguments set: allowed unless
    named, each named one as the rules say; and an allowed call passes few instructions."""
    code = seccomp.program(machine=machine, **kind)
    arch, by_number = seccomp.ARCHITECTURES[machine], names(machine)
    for nr in range(600):
        verdict, steps = trace(code, nr, arch, (0,) * 6)
        assert verdict == expected(machine, by_number.get(nr), (0,) * 6, **kind), nr
        if nr not in by_number:   # the kernel runs this path for each number as it installs
            assert steps <= 16, (nr, steps)


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHITECTURES))
def test_another_architecture_or_abi_gets_enosys(machine):
    code, enosys = seccomp.program(machine=machine), 0x00050000 | errno.ENOSYS
    for other in seccomp.ARCHITECTURES.values():
        if other != seccomp.ARCHITECTURES[machine]:
            assert run(code, 39, other, (0,) * 6) == enosys
    assert run(code, 0x40000000 | 39, seccomp.ARCHITECTURES[machine], (0,) * 6) == (
        enosys if machine == "x86_64" else ALLOW)


def _arguments():
    interesting = st.sampled_from(
        [0, 1, seccomp.AF_UNIX, 2, seccomp.SOL_SOCKET, seccomp.AT_EMPTY_PATH,
         seccomp.RWF_NOWAIT, seccomp.CLONE_THREAD, seccomp.CLONE_PIDFD,
         seccomp.CLONE_THREAD | 0x100, 0x00020000, 0x10000000, 1 << 32, (1 << 32) | 5]
        + list(seccomp.FCNTL_LOCKS_AND_WATCHES + seccomp.FCNTL_SHARED_STATE
               + seccomp.IOCTL_SHARED_STATE + seccomp.SOCKET_PIDFD_OPTIONS))
    return st.tuples(*[interesting | st.integers(0, 2**64 - 1)] * 6)


@settings(max_examples=400, deadline=None)
@given(machine=st.sampled_from(sorted(seccomp.ARCHITECTURES)), kind=st.sampled_from(KINDS),
       nr=st.integers(0, 600), named=st.booleans(), args=_arguments())
def test_a_call_with_any_arguments_gets_the_rules_verdict(machine, kind, nr, named, args):
    by_number = names(machine)
    if named:
        nr = sorted(by_number)[nr % len(by_number)]
    code = seccomp.program(machine=machine, **kind)
    verdict = run(code, nr, seccomp.ARCHITECTURES[machine], args)
    assert verdict == expected(machine, by_number.get(nr), args, **kind)
