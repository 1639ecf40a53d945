"""Which agents take part: built-in names, agent files and folders of them.

An `AgentSpec` says where an agent comes from; `open_handle` turns it into the handle a
game talks to, in the isolation mode asked for.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from .errors import AgentNotFound, HarnessError, LoadError

ISOLATION_MODES = ("sandbox", "process", "none")
MAX_AGENT_BYTES = 1024 * 1024   # an agent file larger than this is refused as a load error


@dataclass(frozen=True)
class AgentSpec:
    name: str
    language: str                 # python, hy, lisp, builtin, callable
    source: str                   # a path, "builtin" or "callable"
    function: Callable | None = field(default=None, compare=False, repr=False)

    @property
    def path(self) -> Path | None:
        """The agent's file (or a Q-table agent's model file)."""
        if self.language in ("python", "hy", "lisp"):
            return Path(self.source)
        from .strategy_specs import model_path

        return model_path(self.source)

    @property
    def entry(self) -> str:
        """The name the agent's file defines, which a population's copies (`type#1`, ...)
        do not carry in their own names."""
        return Path(self.source).stem if self.language in ("python", "hy", "lisp") else self.name


def bundled_agents_dir() -> Path:
    import student_agents

    return Path(student_agents.__file__).resolve().parent


def builtin_spec(name: str) -> AgentSpec:
    return AgentSpec(name, "builtin", "builtin")


def file_spec(path: Path) -> AgentSpec:
    from .languages import BY_SUFFIX

    language = BY_SUFFIX.get(path.suffix)
    if language is None:
        raise AgentNotFound(f"{path}: not an agent file (expected .py, .hy or .lisp)")
    return AgentSpec(path.stem, language.name, str(path))


def is_agent_file(path: Path) -> bool:
    """Named like an agent and not a folder. Links, FIFOs and devices count too, so that
    loading refuses them with a load error that says why (never a silent skip)."""
    from .languages import BY_SUFFIX

    return (path.suffix in BY_SUFFIX and not path.name.startswith(("_", "."))
            and _lexists(path) and not path.is_dir())


def _lexists(path: Path) -> bool:
    try:
        os.lstat(path)
        return True
    except OSError:
        return False


# -- reading an agent's file, which may be anything a student's archive can hold -------------
_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"))


def _not_plain(path, mode: int) -> LoadError:
    if stat.S_ISLNK(mode):
        from .wording import unusable_path

        broken = unusable_path(str(path))  # worded as every command words a broken link
        if broken:
            return LoadError(broken)
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return LoadError(f"{path}: is {kind}, not a plain file; an agent must be a regular file "
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
        chunks, size = [], 0
        while size <= MAX_AGENT_BYTES:
            chunk = os.read(fd, MAX_AGENT_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise LoadError(f"{path}: cannot read: {error.strerror}") from error
    finally:
        os.close(fd)
    if size > MAX_AGENT_BYTES:
        raise _too_large(path, size)
    return b"".join(chunks)


def file_hash(path) -> str | None:
    """The sha256 of an agent file read as `read_agent_file` does; None if it cannot be."""
    import hashlib

    try:  # never through a link, never blocked on a FIFO
        return hashlib.sha256(read_agent_file(path)).hexdigest()
    except LoadError:
        return None


def check_agent_file(path) -> None:
    """LoadError unless `path` is an agent file the harness will read (see open_agent_file)."""
    os.close(open_agent_file(path))


def folder_specs(folder: Path) -> list[AgentSpec]:
    return [file_spec(path) for path in sorted(folder.iterdir()) if is_agent_file(path)]


def _suffixes():
    from .languages import BY_SUFFIX

    return BY_SUFFIX


def find_builtin(name: str) -> str | None:
    from .builtins import BUILTINS

    lowered = name.lower()
    return lowered if lowered in BUILTINS else None


def resolve_one(argument: str, search: Sequence[Path] = ()) -> list[AgentSpec]:
    """AGENT as the command line takes it: a file, a folder, a built-in or an agent name
    found in one of the `search` folders."""
    from .strategy_specs import is_strategy, strategy_spec

    if is_strategy(argument):
        return [strategy_spec(argument)]
    path = Path(argument)
    if path.is_dir():
        specs = folder_specs(path)
        if not specs:
            raise AgentNotFound(f"{path}: folder holds no agent files (.py, .hy, .lisp)")
        return specs
    if path.is_file() or (path.exists() and path.suffix in _suffixes()):
        return [file_spec(path)]  # not a regular file (a FIFO...): a load error says so
    builtin = find_builtin(argument)
    if builtin:
        return [builtin_spec(builtin)]
    for folder in search:
        for candidate in folder_specs(folder) if folder.is_dir() else []:
            if candidate.name.lower() == argument.lower():
                return [candidate]
    from .wording import unknown_agent

    raise AgentNotFound(unknown_agent(argument, search))


def resolve(arguments, search: Sequence[Path] = ()) -> list[AgentSpec]:
    specs = [spec for argument in arguments for spec in resolve_one(argument, search)]
    check_unique(specs)
    return specs


def check_unique(specs: list[AgentSpec]) -> None:
    from .wording import same_name

    seen: dict[str, list[AgentSpec]] = {}
    for spec in specs:
        seen.setdefault(spec.name.lower(), []).append(spec)
    for same in seen.values():
        if len(same) > 1:
            raise HarnessError(same_name(same[0].name, [spec.source for spec in same]))


def callable_spec(function: Callable, name: str | None = None) -> AgentSpec:
    return AgentSpec(name or function.__name__, "callable", "callable", function)
