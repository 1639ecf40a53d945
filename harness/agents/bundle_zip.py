"""A submission bundle's zip, read with bounded memory (harness/agents/bundles.py says what
is refused, and why)."""
from __future__ import annotations

import os
import stat
import struct
from typing import Any

from harness.core.errors import LoadError
from harness.core.safe_text import line

from .bundle_limits import CHUNK, MAX_DEPTH, MAX_FILES, MAX_NAME_BYTES, MIB, SKIPPED, shown_name


class ZipReader:
    """A zip archive read with bounded memory: the archive is a regular file of at most the
    limit, its central directory at most MAX_FILES entries' worth (checked before zipfile
    reads it), every entry decompressed a chunk at a time and counted as it comes."""

    def __init__(self, path: str, limit: int):
        self.path, self.limit = path, limit
        self.archive: Any = None

    def __enter__(self) -> "ZipReader":
        import zipfile  # `pdharness` starts light

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
        return LoadError(f"{line(self.path)}: {why}")

    def _damaged(self, error: BaseException) -> LoadError:
        detail = str(error) or type(error).__name__
        return self._refuse(f"not a zip archive that can be read ({line(detail)[:120]})")

    def _open(self) -> int:
        from .agent_files import _not_plain  # `pdharness` starts light

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
            raise self._refuse(f"{size} bytes, more than the {self.limit // MIB} MiB a "
                               "bundle may hold (--max-bundle-mib)")
        return fd

    def _check_directory(self, handle) -> None:
        """The end record, found as zipfile finds it: its central directory must be small
        enough for MAX_FILES entries, and no zip64 (a bundle never needs one)."""
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

    def files(self) -> dict:
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
                raise self._refuse(f"{shown_name(name)} is encrypted; a bundle's zip holds plain "
                                   "files")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise self._refuse(f"{shown_name(name)} is a link; a bundle holds its own files")
            if name.endswith("/"):
                folders.add(relative)
                continue
            if relative.split("/")[-1] in SKIPPED:
                continue
            if relative in files or relative in folders:
                raise self._refuse(f"holds {shown_name(relative)} twice")
            if info.compress_type not in (0, 8):   # stored, deflated
                raise self._refuse(f"{shown_name(name)} is compressed with method "
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
                                   f"({shown_name(raw)})") from None
        if "\0" in raw:
            raise self._refuse(f"holds an entry with a NUL in its name ({shown_name(raw)})")
        return raw

    def _relative(self, name: str) -> str:
        """The entry's path inside the bundle; refused if it would land outside it."""
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise self._refuse(f"holds an entry name longer than {MAX_NAME_BYTES} bytes")
        if name.startswith("/") or "\\" in name or (len(name) > 1 and name[1] == ":"):
            raise self._refuse(f"holds {shown_name(name)}, outside its folder (an absolute "
                               "path); a bundle's entries are paths inside it")
        parts = [part for part in name.split("/") if part not in ("", ".")]
        if ".." in parts:
            raise self._refuse(f"holds {shown_name(name)}, outside its folder (..); a bundle's "
                               "entries are paths inside it")
        if not parts:
            raise self._refuse(f"holds an entry with no name ({shown_name(name)})")
        if len(parts) > MAX_DEPTH:
            raise self._refuse(f"nests folders deeper than {MAX_DEPTH}")
        return "/".join(parts)

    def chunks(self, info):
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
