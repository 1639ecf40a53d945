"""Submission bundles: an agent's file with the data files and helper modules beside it.

A bundle is a folder or a `.zip` named after the agent, holding the agent's file at its top
(`JonesSmith/JonesSmith.py`; `JonesSmith.zip` with `JonesSmith.py`, or a folder
`JonesSmith/` holding it, as zipping a folder makes). It is untrusted input: it is read
once, under limits, into a snapshot the monitor owns (`open_bundle`), and that snapshot is
what every process of the run plays, what the record's SHA-256 covers and what the sandbox
shows the agent, read-only, as its folder. What changes in the original afterwards changes
nothing, as for a single file (AgentSpec.content).

Refused, each with one line naming the bundle and why (a LoadError, recorded as the agent's
load error): more than `max_bytes` in all (a zip's *expanded* size, counted while it is read,
never trusted from its headers, and read a chunk at a time: memory stays bounded) or more
than MAX_FILES files; a link out of the bundle (or to a folder); a FIFO, device or socket; a
zip entry outside its folder (`../x`, `/etc/x`); a name that is not UTF-8, or one entry
name twice; an encrypted or zip64 archive, or a compression other than deflate.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import stat
import threading
from dataclasses import dataclass

from harness.core.errors import LoadError
from harness.core.safe_text import line

from .bundle_limits import CHUNK, MAX_DEPTH, MAX_FILES, MIB, SKIPPED, shown_name
from .bundle_zip import ZipReader
from .lang import BY_SUFFIX

# imports inside functions here are deferred (`pdharness` starts light)

MAX_BUNDLE_MIB = 64            # the default of --max-bundle-mib
ZIP_SUFFIX = ".zip"


@dataclass(frozen=True)
class Bundle:
    """A bundle as the run plays it: its snapshot folder (absolute), the agent's file in it,
    and the SHA-256 of everything it holds (`digest_of`)."""

    source: str        # as given: the folder or the zip
    name: str          # the agent's name (the bundle's)
    folder: str        # the snapshot, named after the agent: the agent's folder in a game
    agent_file: str    # folder/name.suffix
    language: str
    digest: str
    size: int          # bytes of all its files
    files: int

    def shown(self, text: str) -> str:
        """TEXT (a message from a host, a load error) with the snapshot's folder, random
        and private, named as the bundle was given: the same words on every run."""
        return text.replace(self.folder, self.source.rstrip("/"))


# -- what a bundle is ------------------------------------------------------------------------
def bundle_name(path) -> str:
    """The agent a bundle holds: the zip's name without `.zip`, or the folder's name. A
    bundle an LMS or a browser renamed (`JonesSmith (1).zip`, `JonesSmith-2/`) holds the
    agent whose file is at its top and whose name its own carries (uploaded_names's rule,
    as for a renamed file): exactly one such file, or the name stays the bundle's."""
    from .uploaded_names import is_agent_name

    given = given_name(path)
    if is_agent_name(given):
        return given
    return _renamed(str(path), given) or given


def given_name(path) -> str:
    """The bundle's own name: the zip's without `.zip`, or the folder's."""
    name = os.path.basename(os.path.normpath(str(path)))
    return name[:-len(ZIP_SUFFIX)] if name.lower().endswith(ZIP_SUFFIX) else name


def _renamed(path: str, given: str) -> str | None:
    """The one agent file at the bundle's top named like an agent and carried by GIVEN
    (`JonesSmith-2/JonesSmith.py`, `JonesSmith (1).zip` holding `JonesSmith/JonesSmith.py`);
    None when there is none or several, or the listing cannot be read."""
    from .uploaded_names import decorated

    stems = {stem for stem, suffix in map(os.path.splitext, _top_listing(path))
             if suffix in BY_SUFFIX and decorated(given, stem)}
    return stems.pop() if len(stems) == 1 else None


def _top_listing(path: str) -> list[str]:
    """The file names at a bundle's top, at most MAX_FILES of them: a folder's entries; a
    zip's top entries and those of a folder named after the file in it (a zipped folder)."""
    if os.path.isdir(path):
        try:
            with os.scandir(path) as entries:
                return [entry.name for entry in itertools.islice(entries, MAX_FILES)]
        except OSError:
            return []
    try:
        with ZipReader(path, max_bytes()) as reader:
            names = reader.entry_names()
    except LoadError:
        return []
    return [parts[-1] for parts in (name.split("/") for name in names)
            if len(parts) == 1 or (len(parts) == 2 and parts[0] == os.path.splitext(parts[1])[0])]


def is_zip_name(path) -> bool:
    return str(path).lower().endswith(ZIP_SUFFIX)


def folder_agent_file(folder) -> str | None:
    """The agent's file at the top of a folder named like it (`JonesSmith/JonesSmith.py`),
    or None: then the folder is no bundle (a folder of submissions, a team's folder)."""
    name = bundle_name(folder)
    for suffix in BY_SUFFIX:
        candidate = os.path.join(str(folder), name + suffix)
        if os.path.lexists(candidate):
            return candidate
    return None


def is_bundle(path) -> bool:
    """A `.zip` (not a folder), or a folder whose top holds the file named after it."""
    text = str(path)
    if os.path.isdir(text) and not os.path.islink(text):
        return folder_agent_file(text) is not None
    return is_zip_name(text) and os.path.lexists(text)


def bundle_language(path) -> str:
    """The language of a bundle's agent file, found from its listing; Python where the
    listing cannot be read (loading the bundle then says why)."""
    name = bundle_name(path)
    if not is_zip_name(path):
        found = folder_agent_file(path)
        return BY_SUFFIX[os.path.splitext(found)[1]].name if found else "python"
    try:
        with ZipReader(str(path), max_bytes()) as reader:
            top = _top_files(reader.entry_names(), name)
    except LoadError:
        return "python"
    for suffix, language in BY_SUFFIX.items():
        if name + suffix in top:
            return language.name
    return "python"


# -- the limit ------------------------------------------------------------------------------
_limit = [MAX_BUNDLE_MIB * MIB]


def use_max_mib(mib: int | None) -> None:
    """The size limit for every bundle opened from now on (--max-bundle-mib; None: the
    default). Set once per run by the command line, before any agent is opened."""
    _limit[0] = (MAX_BUNDLE_MIB if mib is None else int(mib)) * MIB


def use_max_bytes(limit: int) -> None:
    """The limit a run's bundles were opened under, in bytes (a cluster's worker takes the
    monitor's)."""
    _limit[0] = int(limit)


def max_bytes() -> int:
    return _limit[0]


def max_mib() -> int:
    """The limit as --max-bundle-mib says it (what a record keeps, and resume is given)."""
    return _limit[0] // MIB


def bundle_files(bundle: Bundle) -> list[tuple[str, str]]:
    """(path in the bundle, '/'-separated; path in its snapshot) of each file a bundle
    holds, in path order: what its digest covers."""
    found = []
    for folder, _subfolders, files in os.walk(bundle.folder):
        for file in files:
            path = os.path.join(folder, file)
            found.append((os.path.relpath(path, bundle.folder).replace(os.sep, "/"), path))
    return sorted(found)


# -- opening: a snapshot the monitor owns ------------------------------------------------------
_opened: dict[tuple[str, int], Bundle | LoadError] = {}
_lock = threading.Lock()


def open_bundle(path) -> Bundle:
    """The bundle at `path`, read once per process under the current limit into a snapshot
    (later calls give the same one); LoadError, one line, if it is refused."""
    key = (os.path.abspath(str(path)), max_bytes())
    with _lock:
        if key not in _opened:
            try:
                _opened[key] = _snapshot(str(path), key[1])
            except LoadError as error:
                _opened[key] = error
            except OSError as error:   # the monitor's own folder of snapshots
                _opened[key] = LoadError(f"{path}: cannot be read into a snapshot: "
                                         f"{error.strerror or error}")
        found = _opened[key]
    if isinstance(found, LoadError):
        raise LoadError(str(found))
    return found


def folder_as_bundle(folder, name: str) -> Bundle:
    """A folder not named after its agent (a Gradescope upload of several files) read as
    the bundle of agent NAME, whose file is at its top: its snapshot is named after NAME, so
    it is a bundle itself. LoadError if it is refused."""
    return _snapshot(str(folder), max_bytes(), name)


def _snapshot(path: str, limit: int, name: str | None = None) -> Bundle:
    name = name or bundle_name(path)
    target = os.path.join(_new_place(), name)
    os.mkdir(target, 0o755)
    os.chmod(target, 0o755)
    writer = _Writer(path, target, limit)
    if is_zip_name(path) and not os.path.isdir(path):
        _from_zip(path, writer, name)
    else:
        _from_folder(path, "", writer, 0)
    return writer.bundle(name)


class _Writer:
    """Files written into the snapshot, counted against the limits, hashed as they go."""

    def __init__(self, source: str, target: str, limit: int):
        self.source, self.target, self.limit = source, target, limit
        self.size = 0
        self.hashes: dict[str, str] = {}

    def refuse(self, why: str) -> LoadError:
        return LoadError(f"{line(self.source)}: {why}")

    def add(self, relative: str, chunks) -> None:
        """A file at `relative` (a checked, '/'-separated path) holding `chunks`."""
        if relative in self.hashes:
            raise self.refuse(f"holds {shown_name(relative)} twice")
        if len(self.hashes) >= MAX_FILES:
            raise self.refuse(f"holds more than {MAX_FILES} files, the most a bundle may")
        destination = os.path.join(self.target, *relative.split("/"))
        try:
            os.makedirs(os.path.dirname(destination), 0o755, exist_ok=True)
            fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o444)
        except OSError as error:   # a file where a folder must be, a name too long...
            raise self.refuse(f"cannot hold {shown_name(relative)}: {error.strerror}") from error
        digest = hashlib.sha256()
        try:
            for chunk in chunks:
                self.size += len(chunk)
                if self.size > self.limit:
                    raise self.refuse(
                        f"holds more than {self.limit // MIB} MiB (expanded), the most a "
                        "bundle may (--max-bundle-mib)")
                digest.update(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        self.hashes[relative] = digest.hexdigest()

    def bundle(self, name: str) -> Bundle:
        for suffix, language in BY_SUFFIX.items():
            if name + suffix in self.hashes:
                return Bundle(self.source, name, self.target,
                              os.path.join(self.target, name + suffix), language.name,
                              digest_of(self.hashes), self.size, len(self.hashes))
        raise self.refuse(f"holds no agent file {name}{'/'.join(BY_SUFFIX)} at its top "
                          "(a bundle is named after its agent, whose file is at its top)")


def digest_of(hashes: dict[str, str]) -> str:
    """The SHA-256 of a bundle: of each file's path and SHA-256, in path order, so the same
    files give the same digest from a folder or a zip."""
    whole = hashlib.sha256()
    for relative in sorted(hashes):
        whole.update(relative.encode("utf-8") + b"\0" + hashes[relative].encode("ascii")
                     + b"\n")
    return whole.hexdigest()


# -- a folder ---------------------------------------------------------------------------------
def _from_folder(folder: str, relative: str, writer: _Writer, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise writer.refuse(f"nests folders deeper than {MAX_DEPTH}")
    entries = []
    try:
        with os.scandir(folder) as listing:
            for entry in listing:   # counted as listed: a folder of a million entries is
                entries.append(entry)   # refused before it fills the monitor's memory
                if len(entries) > MAX_FILES + MAX_DEPTH:
                    raise writer.refuse(f"holds more than {MAX_FILES} files, the most a "
                                        "bundle may")
    except OSError as error:
        raise writer.refuse(f"cannot read {shown_name(relative or '.')}: {error.strerror}") from error
    entries.sort(key=lambda entry: entry.name)
    for entry in entries:
        if entry.name in SKIPPED:
            continue
        inner = _checked_name(entry.name, writer) if not relative else \
            relative + "/" + _checked_name(entry.name, writer)
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            _linked(entry.path, inner, writer)
        elif stat.S_ISDIR(mode):
            _from_folder(entry.path, inner, writer, depth + 1)
        elif stat.S_ISREG(mode):
            writer.add(inner, _file_chunks(entry.path, inner, writer))
        else:
            raise writer.refuse(f"{shown_name(inner)} is not a plain file (a FIFO, device or "
                                "socket); a bundle holds files and folders only")


def _checked_name(name: str, writer: _Writer) -> str:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:   # os.scandir keeps undecodable bytes as surrogates
        readable = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise writer.refuse(f"holds a file whose name is not UTF-8 ({shown_name(readable)})") \
            from None
    return name


def _linked(path: str, relative: str, writer: _Writer) -> None:
    """A link inside the bundle to a file of the bundle is copied as that file; any other
    is refused (a link out of the bundle would show the agent the monitor's files)."""
    top = os.path.realpath(writer.source)
    target = os.path.realpath(path)
    inside = target.startswith(top.rstrip("/") + "/")
    if not inside or not os.path.isfile(target):
        where = "out of the bundle" if not inside else "to a folder or to nothing"
        raise writer.refuse(f"{shown_name(relative)} is a link {where}; a bundle holds its own "
                            "files (copy the file itself into it)")
    writer.add(relative, _file_chunks(target, relative, writer))


def _file_chunks(path: str, relative: str, writer: _Writer):
    """A regular file's bytes, a chunk at a time, never through a link nor from a FIFO."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise writer.refuse(f"cannot read {shown_name(relative)}: {error.strerror}") from error
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise writer.refuse(f"{shown_name(relative)} is not a plain file")
        while chunk := os.read(fd, CHUNK):
            yield chunk
    finally:
        os.close(fd)


# -- a zip --------------------------------------------------------------------------------------
def _from_zip(path: str, writer: _Writer, name: str) -> None:
    with ZipReader(path, writer.limit) as reader:
        files = reader.files()
        prefix = _common_top(list(files), name)
        for relative, info in files.items():
            writer.add(relative[len(prefix):], reader.chunks(info))


def _top_files(names, name: str) -> set[str]:
    """The names at a zip's top, once a single folder named after the agent is stripped."""
    prefix = _common_top(names, name)
    return {entry[len(prefix):] for entry in names if entry.startswith(prefix)}


def _common_top(names, name: str) -> str:
    """`NAME/` when every entry is inside a folder named after the agent (a zipped folder),
    else ''."""
    prefix = name + "/"
    if names and all(entry.startswith(prefix) for entry in names):
        return prefix
    return ""


# -- the snapshots' place -------------------------------------------------------------------
_place: list = []   # [pid, root, this process's own folder of snapshots]
_place_lock = threading.Lock()


def snapshots_root() -> str:
    """Where every monitor keeps its bundles' snapshots: /var/tmp/pdharness-bundles-UID,
    searchable by every user and listable by none. Not the cache: a root monitor's agents
    run as users of their own, and one that cannot reach its snapshot (the cache under
    /root is root's alone) would need root's right to read every file. Not /tmp: each game
    covers it with its own, where an SBCL host binds nothing back."""
    root = f"/var/tmp/pdharness-bundles-{os.geteuid()}"
    os.makedirs(root, 0o711, exist_ok=True)
    found = os.lstat(root)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid():
        raise OSError(0, f"{root} is not a folder of this user's own")
    os.chmod(root, 0o711)
    return root


def _new_place() -> str:
    """A new folder of a name no one can guess, in this process's own folder of snapshots
    (made once and removed when the process exits)."""
    import tempfile

    root = snapshots_root()
    with _place_lock:
        if _place[:2] != [os.getpid(), root] or not os.path.isdir(_place[2]):
            folder = tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root)
            os.chmod(folder, 0o711)
            _remove_at_exit(folder)
            _place[:] = [os.getpid(), root, folder]
        mine = _place[2]
    place = tempfile.mkdtemp(dir=mine)
    os.chmod(place, 0o711)
    return place


def _remove_at_exit(folder: str) -> None:
    import atexit

    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:   # never from a forked worker: the run still plays it
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
