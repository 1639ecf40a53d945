"""Opening an agent's file safely: it may be anything a student's archive can hold (a link
to /etc/shadow, a FIFO, a device, a huge file), and the monitor may be root. Only a regular
file of at most MAX_AGENT_BYTES is read, checked on the opened descriptor itself.

Every other file the monitor reads goes the same way (`read_input_file`, `check_input_file`):
population, experiment and course files, Q-table models, rosters and records. Any of them
may come with a folder of uploads or from a stranger, and `qtable:/dev/stdin` or a FIFO
must not hang a run before its first game."""
from __future__ import annotations

import os
import stat

from harness.core.errors import HarnessError, LoadError

MAX_AGENT_BYTES = 1024 * 1024   # an agent file larger than this is refused as a load error

_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"))


def unusable_path(argument: str) -> str | None:
    """Why ARGUMENT, meant as a file or folder, cannot be used; None when it is one."""
    from pathlib import Path  # here: a host's zygote imports this module, not pathlib

    path = Path(argument)
    if path.is_symlink() and not path.exists():
        return f"{argument}: a broken symbolic link (to {os.readlink(path)}, which does not exist)"
    if path.is_dir() or path.is_file():
        return None
    if path.exists():
        return f"{argument}: not a file or a folder"
    return f"{argument}: no such file or folder"


def _not_plain(path, mode: int, what: str = "an agent", error=LoadError) -> Exception:
    if stat.S_ISLNK(mode):
        broken = unusable_path(str(path))  # worded as every command words a broken link
        if broken:
            return error(broken)
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return error(f"{path}: is {kind}, not a plain file; {what} must be a regular file "
                 "(copy the file itself into the folder)")


def _too_large(path, size: int) -> LoadError:
    return LoadError(f"{path}: {size} bytes; an agent file may hold at most "
                     f"{MAX_AGENT_BYTES // 1024} KiB")


def open_agent_file(path) -> int:
    """A read-only descriptor of the agent file at `path`, which must be a regular file of
    at most MAX_AGENT_BYTES; else LoadError. Never follows a symbolic link (the monitor may
    be root: a link to /etc/shadow must not be read) nor blocks on a FIFO: the check is
    made on the opened file (fstat), so the path cannot be swapped in between."""
    try:
        mode = os.lstat(path).st_mode  # a device is not even opened (opening one may act)
    except OSError as error:
        raise LoadError(f"{path}: cannot read: {error.strerror}") from error
    if not stat.S_ISREG(mode):
        raise _not_plain(path, mode)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise LoadError(f"{path}: cannot read: {error.strerror}") from error
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise _not_plain(path, found.st_mode)
        if found.st_size > MAX_AGENT_BYTES:
            raise _too_large(path, found.st_size)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_agent_file(path) -> bytes:
    """The bytes of an agent file, checked as `open_agent_file` does (and capped even if it
    grows while read)."""
    fd = open_agent_file(path)
    try:
        content = _read_capped(fd, MAX_AGENT_BYTES)
    except OSError as error:
        raise LoadError(f"{path}: cannot read: {error.strerror}") from error
    finally:
        os.close(fd)
    if len(content) > MAX_AGENT_BYTES:
        raise _too_large(path, len(content))
    return content


def _read_capped(fd: int, limit: int) -> bytes:
    """What `fd` holds, read to its end or to one byte past `limit`, whichever comes first:
    more than `limit` bytes back means too large (a file may grow after its fstat)."""
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def check_input_file(path, what: str) -> None:
    """HarnessError (one line) unless `path` is a regular file, not a symbolic link: for an
    input file read by a library that opens it itself (SQLite, a record)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as error:
        raise HarnessError(f"{path}: cannot read {what}: {error.strerror}") from error
    if not stat.S_ISREG(mode):
        raise _not_plain(path, mode, what, HarnessError)


def read_input_file(path, limit: int, what: str) -> bytes:
    """The bytes of an input file (`what`: "a population file", ...): a regular file, no
    link followed, no FIFO or device opened, at most `limit` bytes; else HarnessError, one
    line naming the file."""
    check_input_file(path, what)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise HarnessError(f"{path}: cannot read {what}: {error.strerror}") from error
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):   # swapped since lstat
            raise _not_plain(path, found.st_mode, what, HarnessError)
        content = _read_capped(fd, limit)
    except OSError as error:
        raise HarnessError(f"{path}: cannot read {what}: {error.strerror}") from error
    finally:
        os.close(fd)
    if len(content) > limit:
        raise HarnessError(f"{path}: larger than {limit} bytes, the most {what} may be")
    return content


def file_hash(path) -> str | None:
    """The sha256 of an agent file read as `read_agent_file` does; None if it cannot be."""
    import hashlib  # the host's image stays lean

    try:  # never through a link, never blocked on a FIFO
        return hashlib.sha256(read_agent_file(path)).hexdigest()
    except LoadError:
        return None


def check_agent_file(path) -> None:
    """LoadError unless `path` is an agent file the harness will read (see open_agent_file)."""
    os.close(open_agent_file(path))


# -- the bytes a run plays ------------------------------------------------------------------
# A run reads each agent file once (AgentSpec.content) and every process that loads the
# agent, a replacement too, loads those bytes: a file edited during the run changes
# nothing, and the record's SHA-256 is of what was played. A host gets them from the
# monitor (SOURCE_FD) and hands them over here, where loading a source looks first.
SOURCE_FD = "PDH_SOURCE_FD"
# A bundle's agent (harness/agents/bundles.py) has a folder: its bundle's snapshot, which the
# monitor names in this variable. The host (Python, Hy: harness/isolation/host.py; SBCL:
# lisp_bridge/sbcl_host.lisp) removes it from the environment and, in every process that
# runs agent code, once that process's world is built and before any agent code, makes it
# the current folder and puts it first on the import path (Lisp: *default-pathname-defaults*).
AGENT_FOLDER = "PDH_AGENT_FOLDER"
_handed: dict[str, bytes] = {}


def hand_over(path, content: bytes) -> None:
    """From now on, loading the agent source at `path` loads `content` (see above)."""
    _handed[os.path.abspath(path)] = content


def handed_over(path) -> bytes | None:
    return _handed.get(os.path.abspath(path))


def take_given_source(path, environ=None) -> None:
    """In a host, before any game's world hides the file: the bytes the monitor gave on the
    descriptor named in SOURCE_FD (the variable leaves the environment, the descriptor is
    closed), else the file's own, read now; handed over for `path`. LoadError if the file
    cannot be read."""
    environ = os.environ if environ is None else environ
    number = environ.pop(SOURCE_FD, "")
    if not number:
        hand_over(path, read_agent_file(path))
        return
    fd = int(number)
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    hand_over(path, b"".join(chunks))


def source_memfd(content: bytes) -> int:
    """A descriptor holding `content`, at offset 0, for a host to read (or bwrap to copy)."""
    fd = os.memfd_create("pdharness-agent", os.MFD_CLOEXEC)
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
