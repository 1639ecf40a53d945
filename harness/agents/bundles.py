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
import stat
import threading
from dataclasses import dataclass
from typing import Any

from harness.core.errors import LoadError

MAX_BUNDLE_MIB = 64            # the default of --max-bundle-mib
MAX_FILES = 1000               # files a bundle may hold
MAX_NAME_BYTES = 1024          # a path inside a bundle, in UTF-8
MAX_DEPTH = 32                 # folders inside folders
ZIP_SUFFIX = ".zip"
CHUNK = 64 * 1024
# what tools leave beside a submission that is no part of it: never copied
SKIPPED = frozenset({"__pycache__", ".git", "__MACOSX", ".DS_Store"})
_MIB = 1024 * 1024


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
    from .lang import BY_SUFFIX
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
        with _ZipReader(path, max_bytes()) as reader:
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
    from .lang import BY_SUFFIX

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
    from .lang import BY_SUFFIX

    name = bundle_name(path)
    if not is_zip_name(path):
        found = folder_agent_file(path)
        return BY_SUFFIX[os.path.splitext(found)[1]].name if found else "python"
    try:
        with _ZipReader(str(path), max_bytes()) as reader:
            top = _top_files(reader.entry_names(), name)
    except LoadError:
        return "python"
    for suffix, language in BY_SUFFIX.items():
        if name + suffix in top:
            return language.name
    return "python"


# -- the limit ------------------------------------------------------------------------------
_limit = [MAX_BUNDLE_MIB * _MIB]


def use_max_mib(mib: int | None) -> None:
    """The size limit for every bundle opened from now on (--max-bundle-mib; None: the
    default). Set once per run by the command line, before any agent is opened."""
    _limit[0] = (MAX_BUNDLE_MIB if mib is None else int(mib)) * _MIB


def use_max_bytes(limit: int) -> None:
    """The limit a run's bundles were opened under, in bytes (a cluster's worker takes the
    monitor's)."""
    _limit[0] = int(limit)


def max_bytes() -> int:
    return _limit[0]


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
        from harness.core.safe_text import line

        return LoadError(f"{line(self.source)}: {why}")

    def add(self, relative: str, chunks) -> None:
        """A file at `relative` (a checked, '/'-separated path) holding `chunks`."""
        if relative in self.hashes:
            raise self.refuse(f"holds {_shown(relative)} twice")
        if len(self.hashes) >= MAX_FILES:
            raise self.refuse(f"holds more than {MAX_FILES} files, the most a bundle may")
        destination = os.path.join(self.target, *relative.split("/"))
        try:
            os.makedirs(os.path.dirname(destination), 0o755, exist_ok=True)
            fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o444)
        except OSError as error:   # a file where a folder must be, a name too long...
            raise self.refuse(f"cannot hold {_shown(relative)}: {error.strerror}") from error
        digest = hashlib.sha256()
        try:
            for chunk in chunks:
                self.size += len(chunk)
                if self.size > self.limit:
                    raise self.refuse(
                        f"holds more than {self.limit // _MIB} MiB (expanded), the most a "
                        "bundle may (--max-bundle-mib)")
                digest.update(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        self.hashes[relative] = digest.hexdigest()

    def bundle(self, name: str) -> Bundle:
        from .lang import BY_SUFFIX

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


def _shown(name: str) -> str:
    from harness.core.safe_text import line

    return line(name if len(name) <= 80 else name[:80] + "...")


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
        raise writer.refuse(f"cannot read {_shown(relative or '.')}: {error.strerror}") from error
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
            raise writer.refuse(f"{_shown(inner)} is not a plain file (a FIFO, device or "
                                "socket); a bundle holds files and folders only")


def _checked_name(name: str, writer: _Writer) -> str:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:   # os.scandir keeps undecodable bytes as surrogates
        readable = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise writer.refuse(f"holds a file whose name is not UTF-8 ({_shown(readable)})") \
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
        raise writer.refuse(f"{_shown(relative)} is a link {where}; a bundle holds its own "
                            "files (copy the file itself into it)")
    writer.add(relative, _file_chunks(target, relative, writer))


def _file_chunks(path: str, relative: str, writer: _Writer):
    """A regular file's bytes, a chunk at a time, never through a link nor from a FIFO."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise writer.refuse(f"cannot read {_shown(relative)}: {error.strerror}") from error
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise writer.refuse(f"{_shown(relative)} is not a plain file")
        while chunk := os.read(fd, CHUNK):
            yield chunk
    finally:
        os.close(fd)


# -- a zip --------------------------------------------------------------------------------------
def _from_zip(path: str, writer: _Writer, name: str) -> None:
    with _ZipReader(path, writer.limit) as reader:
        files = reader.files(writer)
        prefix = _common_top(list(files), name)
        for relative, info in files.items():
            writer.add(relative[len(prefix):], reader.chunks(info, writer))


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


class _ZipReader:
    """A zip archive read with bounded memory: the archive is a regular file of at most the
    limit, its central directory at most MAX_FILES entries' worth (checked before zipfile
    reads it), every entry decompressed a chunk at a time and counted as it comes."""

    def __init__(self, path: str, limit: int):
        self.path, self.limit = path, limit
        self.archive: Any = None

    def __enter__(self) -> "_ZipReader":
        import zipfile

        fd = self._open()
        handle = os.fdopen(fd, "rb")
        try:
            self._check_directory(handle)
            self.archive = zipfile.ZipFile(handle)
        except LoadError:
            handle.close()
            raise
        except Exception as error:   # noqa: BLE001 - any malformed archive is refused
            handle.close()
            raise self._damaged(error) from None
        return self

    def __exit__(self, *exc) -> None:
        if self.archive is not None:
            fp = self.archive.fp
            self.archive.close()
            if fp is not None:
                fp.close()

    def _refuse(self, why: str) -> LoadError:
        from harness.core.safe_text import line

        return LoadError(f"{line(self.path)}: {why}")

    def _damaged(self, error: BaseException) -> LoadError:
        from harness.core.safe_text import line

        detail = str(error) or type(error).__name__
        return self._refuse(f"not a zip archive that can be read ({line(detail)[:120]})")

    def _open(self) -> int:
        from .agent_files import _not_plain

        try:
            mode = os.lstat(self.path).st_mode
        except OSError as error:
            raise self._refuse(f"cannot read: {error.strerror}") from error
        if not stat.S_ISREG(mode):
            raise _not_plain(self.path, mode, "a bundle's zip")
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags)
        except OSError as error:
            raise self._refuse(f"cannot read: {error.strerror}") from error
        size = os.fstat(fd).st_size
        if not stat.S_ISREG(os.fstat(fd).st_mode) or size > self.limit:
            os.close(fd)
            raise self._refuse(f"{size} bytes, more than the {self.limit // _MIB} MiB a "
                               "bundle may hold (--max-bundle-mib)")
        return fd

    def _check_directory(self, handle) -> None:
        """The end record, found as zipfile finds it: its central directory must be small
        enough for MAX_FILES entries, and no zip64 (a bundle never needs one)."""
        import struct

        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        tail_size = min(size, 22 + 65535 + 20)   # and room for a zip64 locator before it
        handle.seek(size - tail_size)
        tail = handle.read(tail_size)
        at = len(tail) - 22 if tail[-22:-18] == b"PK\x05\x06" and tail[-2:] == b"\0\0" \
            else tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < 22:
            raise self._refuse("not a zip archive (no end of central directory)")
        (_, disk, _, on_disk, entries, directory_size,
         _, _) = struct.unpack("<4sHHHHIIH", tail[at:at + 22])
        if 0xFFFF in (disk, on_disk, entries) or directory_size == 0xFFFFFFFF \
                or tail[max(0, at - 20):at - 16] == b"PK\x06\x07":
            raise self._refuse("a zip64 archive; zip the bundle with a usual tool (zip -r)")
        if entries > 2 * MAX_FILES or directory_size > 2 * MAX_FILES * (46 + MAX_NAME_BYTES):
            raise self._refuse(f"lists more than {MAX_FILES} files, the most a bundle may")

    def entry_names(self) -> list[str]:
        assert self.archive is not None
        return [info.filename for info in self.archive.infolist()]

    def files(self, writer: _Writer) -> dict:
        """{checked relative path: ZipInfo} of the files to extract, in archive order."""
        assert self.archive is not None
        files: dict = {}
        folders: set[str] = set()
        for info in self.archive.infolist():
            name = self._utf8_name(info)
            if name.split("/")[0] in SKIPPED:
                continue
            relative = self._relative(name)
            if info.flag_bits & 0x1:
                raise self._refuse(f"{_shown(name)} is encrypted; a bundle's zip holds plain "
                                   "files")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise self._refuse(f"{_shown(name)} is a link; a bundle holds its own files")
            if name.endswith("/"):
                folders.add(relative)
                continue
            if relative.split("/")[-1] in SKIPPED:
                continue
            if relative in files or relative in folders:
                raise self._refuse(f"holds {_shown(relative)} twice")
            if info.compress_type not in (0, 8):   # stored, deflated
                raise self._refuse(f"{_shown(name)} is compressed with method "
                                   f"{info.compress_type}; zip the bundle with deflate "
                                   "(any usual tool does)")
            files[relative] = info
            if len(files) > MAX_FILES:
                raise self._refuse(f"holds more than {MAX_FILES} files, the most a bundle may")
        return files

    def _utf8_name(self, info) -> str:
        raw = info.orig_filename
        if not info.flag_bits & 0x800:   # zipfile read it as cp437: take its bytes back
            try:
                raw = raw.encode("cp437").decode("utf-8")
            except UnicodeError:
                raise self._refuse(f"holds an entry whose name is not UTF-8 "
                                   f"({_shown(raw)})") from None
        if "\0" in raw:
            raise self._refuse(f"holds an entry with a NUL in its name ({_shown(raw)})")
        return raw

    def _relative(self, name: str) -> str:
        """The entry's path inside the bundle; refused if it would land outside it."""
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise self._refuse(f"holds an entry name longer than {MAX_NAME_BYTES} bytes")
        if name.startswith("/") or "\\" in name or (len(name) > 1 and name[1] == ":"):
            raise self._refuse(f"holds {_shown(name)}, outside its folder (an absolute "
                               "path); a bundle's entries are paths inside it")
        parts = [part for part in name.split("/") if part not in ("", ".")]
        if ".." in parts:
            raise self._refuse(f"holds {_shown(name)}, outside its folder (..); a bundle's "
                               "entries are paths inside it")
        if not parts:
            raise self._refuse(f"holds an entry with no name ({_shown(name)})")
        if len(parts) > MAX_DEPTH:
            raise self._refuse(f"nests folders deeper than {MAX_DEPTH}")
        return "/".join(parts)

    def chunks(self, info, writer: _Writer):
        """The entry's bytes as they decompress, a chunk at a time (the writer counts them
        against the limit: the header's sizes are never trusted); a damaged entry is
        refused."""
        assert self.archive is not None
        try:
            with self.archive.open(info) as entry:
                while True:
                    chunk = entry.read(CHUNK)
                    if not chunk:
                        return
                    yield chunk
        except LoadError:
            raise
        except Exception as error:   # noqa: BLE001 - a damaged entry, whatever zipfile says
            raise self._damaged(error) from None


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
    import shutil

    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:   # never from a forked worker: the run still plays it
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
