"""What a ladder's pass finds in SUBMISSIONS: each file or bundle read once into a private
snapshot, named (as every command names an upload: harness/agents/uploaded_names.py) and
given its version, the SHA-256 of its content (a bundle's digest over its paths and
contents: harness/agents/bundles.py).

The snapshot is what the pass validates and plays, so an upload replaced or edited after
it was read changes nothing of this pass (the next pass sees a new version). What cannot
be read - gone between listing and reading, edited while being read, too large, a link,
a FIFO - and two submissions of one agent name are each one `Found` with a status and a
one-line message; nothing here raises for a submission.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.agents import agent_files
from harness.agents.bundles import bundle_name, folder_as_bundle, is_bundle, is_zip_name
from harness.agents.specs import file_spec
from harness.agents.wording import same_name
from harness.core.errors import HarnessError, LoadError
from harness.core.safe_text import line
from harness.core.seeds import canonical_name, derive
from harness.validation.contract import ContractParams
from harness.validation.submission import submission_files, validate_all

# the statuses a submission gets in a pass (also the JSON's "status" words)
OK = "ok"                    # its version plays
REFERENCE = "reference"      # a built-in named with --reference
FAILED = "failed"            # validation found a problem: this version plays nothing
UNREADABLE = "unreadable"    # could not be read this pass (gone, edited, too large, ...)
COLLISION = "name-collision"  # two submissions of one agent name: neither is taken
WITHDRAWN = "withdrawn"      # its agent's submission is no longer in the folder


@dataclass
class Found:
    source: str                       # as found in SUBMISSIONS
    name: str | None                  # the agent it plays as
    language: str | None = None
    digest: str | None = None         # its version
    snapshot: Path | None = None      # what is validated and played
    status: str = OK
    message: str = ""
    problems: list = field(default_factory=list)   # [(code, message)] from validation

    @property
    def readable(self) -> bool:
        return self.digest is not None and self.status not in (UNREADABLE, COLLISION)

    def shown(self, text: str) -> str:
        """TEXT with the private snapshot's path named as the submission was found."""
        if self.snapshot is None:
            return text
        return text.replace(str(self.snapshot), self.source)


class Snapshots:
    """A pass's private folder of snapshots, removed when the pass ends."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="pdharness-ladder-", dir=_place()))
        os.chmod(self.root, 0o711)   # a root monitor's sandboxed agents reach their own
        self.count = 0

    def folder(self) -> Path:
        self.count += 1
        folder = self.root / str(self.count)
        folder.mkdir(mode=0o755)
        return folder

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _place() -> str:
    """Not /tmp: under `process` every game has a /tmp of its own (harness/isolation/world.py)."""
    return "/var/tmp" if os.access("/var/tmp", os.W_OK) else tempfile.gettempdir()


def listed(folder: Path) -> list[Path]:
    """The submissions in FOLDER as validate finds them (files and bundles, not in
    subfolders); none is no error for a ladder (a new term starts empty)."""
    if not folder.is_dir():
        raise HarnessError(f"{line(folder)}: not a folder of submissions")
    try:
        return submission_files([str(folder)])
    except HarnessError:
        return []


def read_all(paths: list[Path], snapshots: Snapshots) -> list[Found]:
    """Each path read into a snapshot; then two submissions of one agent name marked."""
    found = [read_one(path, snapshots) for path in paths]
    _mark_collisions(found)
    return found


def read_one(path: Path, snapshots: Snapshots) -> Found:
    source = str(path)
    try:
        if is_bundle(path):
            return _read_bundle(path, snapshots)
        return _read_file(path, snapshots)
    except LoadError as error:
        return Found(source, _name_of(path), status=UNREADABLE, message=line(error))
    except OSError as error:   # gone between listing and reading, or unreadable
        return Found(source, _name_of(path), status=UNREADABLE,
                     message=f"{line(source)}: cannot be read: {error.strerror or error}")


def _name_of(path: Path) -> str | None:
    name = bundle_name(path) if path.suffix in ("", ".zip") else path.stem
    return name or None


def _signature(path: Path) -> tuple:
    found = os.lstat(path)
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def _read_file(path: Path, snapshots: Snapshots) -> Found:
    source = str(path)
    before = _signature(path)
    content = agent_files.read_agent_file(path)  # a regular file, at most 1 MiB, or a LoadError
    if _signature(path) != before:
        return _edited(path)
    copy = snapshots.folder() / path.name
    copy.write_bytes(content)
    spec = file_spec(copy)               # named as its upload (uploaded_names.played_as)
    return Found(source, spec.name, spec.language, hashlib.sha256(content).hexdigest(), copy)


def _read_bundle(path: Path, snapshots: Snapshots) -> Found:
    source, name = str(path), bundle_name(path)
    before = _signature(path)
    bundle = folder_as_bundle(path, name)
    if _signature(path) != before:
        return _edited(path)
    if not is_zip_name(path):
        # a folder's files may change one by one, under an unchanged folder: read again
        again = folder_as_bundle(path, name)
        shutil.rmtree(os.path.dirname(again.folder), ignore_errors=True)
        if again.digest != bundle.digest:
            return _edited(path)
    place = snapshots.folder() / name
    shutil.copytree(bundle.folder, place)
    shutil.rmtree(os.path.dirname(bundle.folder), ignore_errors=True)
    return Found(source, name, bundle.language, bundle.digest, place)


def _edited(path: Path) -> Found:
    return Found(str(path), _name_of(path), status=UNREADABLE,
                 message=f"{line(path)}: changed while it was read; it is read again next pass")


def _mark_collisions(found: list[Found]) -> None:
    """Two readable submissions of one agent name (the same rule as every command's:
    names are one agent whatever their case): neither is taken this pass."""
    by_name: dict[str, list[Found]] = {}
    for entry in found:
        if entry.name and entry.status != UNREADABLE:
            by_name.setdefault(canonical_name(entry.name), []).append(entry)
    for same in by_name.values():
        if len(same) > 1:
            message = line(same_name(same[0].name or "", [entry.source for entry in same]))
            for entry in same:
                entry.status, entry.message = COLLISION, message


def validate(found: list[Found], settings, seed: int, roster=None, jobs=None) -> None:
    """Validate the submissions in FOUND exactly as `validate` does (the same checks, under
    the course's limits and rules), the contract games seeded from the ladder's seed (no
    agent knows it); a failing one gets status FAILED and its problems."""
    if not found:
        return
    params = ContractParams.of(settings, derive(seed, "ladder-validate"))
    snapshots = [entry.snapshot for entry in found if entry.snapshot is not None]
    assert len(snapshots) == len(found)   # only what was read is validated
    verdicts = validate_all(snapshots, settings.isolation, roster, jobs, params)
    for entry, verdict in zip(found, verdicts, strict=True):
        entry.problems = [(str(p.code), _named_as_found(found, p.message))
                          for p in verdict.problems]
        if verdict.problems:
            entry.status = FAILED
            entry.message = "; ".join(f"{code}: {message}" for code, message in entry.problems)


def _named_as_found(found: list[Found], text: str) -> str:
    """TEXT with every snapshot's path named as its submission was found (a duplicate-name
    problem names the other submissions too)."""
    for entry in found:
        text = entry.shown(text)
    return text
