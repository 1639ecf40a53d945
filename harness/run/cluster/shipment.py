"""Agents travelling to workers: each agent's file (and a Q-table agent's model) as bytes
with its SHA-256, written on arrival into the worker's own folder and checked there.

A worker runs an agent from its copy exactly as the monitor's machine would run the
original: same language, same entry name (the copy keeps the file's name), same sandbox.
A bundle travels as the files of the monitor's snapshot (each by its SHA-256, with its path
in the bundle); the worker lays them out as a folder named after the agent and opens that
as the bundle, under the limit the monitor's run had: its digest must be the one the
monitor recorded.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from harness.agents.agent_files import read_agent_file
from harness.agents.bundles import bundle_files, digest_of, max_bytes, use_max_bytes
from harness.agents.specs import AgentSpec, Kind
from harness.agents.strategy_specs import QTABLE_PREFIX
from harness.core.errors import HarnessError, LoadError


@dataclass(frozen=True)
class Parcel:
    """One agent, as the task carries it (pickled from monitor to worker, never back)."""

    name: str
    language: str
    source: str               # as the monitor knows it (a path, "builtin", "memory:...")
    file_name: str | None     # the file's own name (kept: it is the agent's entry name)
    sha256: str | None        # its content, in the shipment's files (a bundle's digest)
    bundle: tuple[tuple[str, str], ...] = ()   # a bundle's files: (path in it, SHA-256)
    refused: str | None = None  # why the monitor could not read it: it does not load there


@dataclass(frozen=True)
class Shipment:
    agents: tuple[Parcel, ...]
    files: dict[str, bytes]   # sha256 -> content, once however many agents share it
    bundle_bytes: int = 0     # the monitor's bundle limit (--max-bundle-mib), in bytes

    def only(self, names) -> "Shipment":
        """The part of the shipment a task needs: the agents named, and their files."""
        agents = tuple(parcel for parcel in self.agents if parcel.name in names)
        return Shipment(agents, {digest: self.files[digest] for parcel in agents
                                 for digest in _contents(parcel)}, self.bundle_bytes)


def _contents(parcel: Parcel) -> list[str]:
    """The SHA-256s of the files PARCEL needs from the shipment."""
    if parcel.bundle:
        return [digest for _, digest in parcel.bundle]
    return [parcel.sha256] if parcel.sha256 else []


def pack(specs) -> Shipment:
    """The shipment of `specs`; HarnessError for an agent that cannot travel (a Python
    function given to the API lives only in this process)."""
    parcels: list[Parcel] = []
    files: dict[str, bytes] = {}
    for spec in specs:
        if spec.kind is Kind.CALLABLE:
            raise HarnessError(f"agent {spec.name} is a Python function: it cannot run on a "
                               "cluster (give it as a file)")
        if spec.kind is Kind.LLM:
            raise HarnessError(f"agent {spec.name} is a language model: it plays in the "
                               "monitor, not on a cluster (leave out --cluster)")
        try:
            parcels.append(_parcel(spec, files))
        except LoadError as refused:   # the words a local run's loading says
            parcels.append(Parcel(spec.name, spec.language, spec.source, None, None,
                                  refused=str(refused)))

    return Shipment(tuple(parcels), files, max_bytes())


def _parcel(spec, files: dict[str, bytes]) -> Parcel:
    """SPEC's parcel, its files added to FILES by their SHA-256; LoadError if it cannot be
    read (a bundle refused, a file too large)."""
    if spec.is_bundle:
        return _bundle_parcel(spec, files)
    path = spec.path
    if path is None:
        return Parcel(spec.name, spec.language, spec.source, None, None)
    content = read_agent_file(path)   # the same checks as a local run's loading
    digest = hashlib.sha256(content).hexdigest()
    files[digest] = content
    return Parcel(spec.name, spec.language, spec.source, path.name, digest)


def not_loaded(shipment: Shipment) -> dict[str, str]:
    """{agent: why the monitor could not read it} of the shipment's refused parcels."""
    return {parcel.name: parcel.refused for parcel in shipment.agents if parcel.refused}


def _bundle_parcel(spec, files: dict[str, bytes]) -> Parcel:
    """A bundle's parcel: the files of its snapshot (already read once under the limit),
    each added to FILES by its SHA-256; LoadError if the bundle is refused."""
    bundle = spec.bundle()
    listing = []
    for relative, path in bundle_files(bundle):
        content = Path(path).read_bytes()
        digest = hashlib.sha256(content).hexdigest()
        files[digest] = content
        listing.append((relative, digest))
    return Parcel(spec.name, spec.language, spec.source, bundle.name, bundle.digest,
                  tuple(listing))


class DamagedParcel(Exception):
    """An agent's bytes that do not match their SHA-256."""


_folder: str | None = None
_lock = threading.Lock()


def _worker_folder() -> str:
    """This worker process's own folder for agents' copies, removed when it exits."""
    global _folder
    with _lock:
        if _folder is None:
            _folder = tempfile.mkdtemp(prefix="pdh-cluster-")
            atexit.register(shutil.rmtree, _folder, True)
        return _folder


def unpack(shipment: Shipment) -> list:
    """The AgentSpecs of the shipment on this worker, their files written (once per
    content) under the worker's folder; DamagedParcel when bytes and hash differ."""
    if any(parcel.bundle for parcel in shipment.agents):
        use_max_bytes(shipment.bundle_bytes)   # the run's limit, as the monitor opened them
    return [_spec(parcel, shipment.files) for parcel in shipment.agents]


def _spec(parcel: Parcel, files):
    if parcel.bundle:
        return AgentSpec(parcel.name, parcel.language, _bundle_copy(parcel, files))
    if parcel.sha256 is None:   # a built-in, or refused (never opened: `not_loaded`)
        return AgentSpec(parcel.name, parcel.language, parcel.source)
    content = files.get(parcel.sha256)
    if content is None or hashlib.sha256(content).hexdigest() != parcel.sha256:
        raise DamagedParcel(f"agent {parcel.name}: its file arrived damaged (SHA-256 differs)")
    name = parcel.file_name
    if name is None or not _plain_name(name):
        raise DamagedParcel(f"agent {parcel.name}: unusable file name")
    path = Path(_worker_folder()) / parcel.sha256 / name
    _write_once(path, content)
    if Kind.of(parcel.language, parcel.source) is Kind.QTABLE:   # its model file
        return AgentSpec(parcel.name, Kind.QTABLE.spelling, QTABLE_PREFIX + str(path))
    return AgentSpec(parcel.name, parcel.language, str(path))


def _bundle_copy(parcel: Parcel, files) -> str:
    """The folder, named after the agent, holding a bundle's files as they arrived; the
    same digest as the monitor's snapshot, or DamagedParcel."""
    hashes = dict(parcel.bundle)
    if len(hashes) != len(parcel.bundle) or digest_of(hashes) != parcel.sha256 \
            or not _plain_name(parcel.file_name):
        raise DamagedParcel(f"agent {parcel.name}: its bundle arrived damaged")
    folder = Path(_worker_folder()) / str(parcel.sha256) / str(parcel.file_name)
    for relative, digest in parcel.bundle:
        parts = relative.split("/")
        content = files.get(digest)
        if not all(_plain_name(part) for part in parts) or content is None \
                or hashlib.sha256(content).hexdigest() != digest:
            raise DamagedParcel(f"agent {parcel.name}: its bundle arrived damaged")
        _write_once(folder.joinpath(*parts), content)
    return str(folder)


def _plain_name(name) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name \
        and "\0" not in name


def _write_once(path: Path, content: bytes) -> None:
    """Write the copy unless an identical one is there (read-only: agents never change it)."""
    with _lock:
        if path.is_file() and path.read_bytes() == content:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".part")
        partial.write_bytes(content)
        os.chmod(partial, 0o444)
        os.replace(partial, path)
