"""Agents travelling to workers: each agent's file (and a Q-table agent's model) as bytes
with its SHA-256, written on arrival into the worker's own folder and checked there.

A worker runs an agent from its copy exactly as the monitor's machine would run the
original: same language, same entry name (the copy keeps the file's name), same sandbox.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError


@dataclass(frozen=True)
class Parcel:
    """One agent, as the task carries it (pickled from monitor to worker, never back)."""

    name: str
    language: str
    source: str               # as the monitor knows it (a path, "builtin", "memory:...")
    file_name: str | None     # the file's own name (kept: it is the agent's entry name)
    sha256: str | None        # its content, in the shipment's files


@dataclass(frozen=True)
class Shipment:
    agents: tuple[Parcel, ...]
    files: dict[str, bytes]   # sha256 -> content, once however many agents share it

    def only(self, names) -> "Shipment":
        """The part of the shipment a task needs: the agents named, and their files."""
        agents = tuple(parcel for parcel in self.agents if parcel.name in names)
        return Shipment(agents, {parcel.sha256: self.files[parcel.sha256]
                                 for parcel in agents if parcel.sha256})


def pack(specs) -> Shipment:
    """The shipment of `specs`; HarnessError for an agent that cannot travel (a Python
    function given to the API lives only in this process)."""
    from harness.agents.agent_files import read_agent_file
    from harness.agents.specs import Kind

    parcels, files = [], {}
    for spec in specs:
        if spec.kind is Kind.CALLABLE:
            raise HarnessError(f"agent {spec.name} is a Python function: it cannot run on a "
                               "cluster (give it as a file)")
        if spec.kind is Kind.LLM:
            raise HarnessError(f"agent {spec.name} is a language model: it plays in the "
                               "monitor, not on a cluster (leave out --cluster)")
        if spec.is_bundle:
            raise HarnessError(f"agent {spec.name} is a bundle ({spec.source}): bundles do "
                               "not travel to a cluster yet (leave out --cluster)")
        path = spec.path
        if path is None:
            parcels.append(Parcel(spec.name, spec.language, spec.source, None, None))
            continue
        content = read_agent_file(path)   # the same checks as a local run's loading
        digest = hashlib.sha256(content).hexdigest()
        files[digest] = content
        parcels.append(Parcel(spec.name, spec.language, spec.source, path.name, digest))
    return Shipment(tuple(parcels), files)


class DamagedParcel(Exception):
    """An agent's bytes that do not match their SHA-256."""


_folder: str | None = None
_lock = threading.Lock()


def _worker_folder() -> str:
    """This worker process's own folder for agents' copies, removed when it exits."""
    global _folder
    with _lock:
        if _folder is None:
            import atexit
            import shutil

            _folder = tempfile.mkdtemp(prefix="pdh-cluster-")
            atexit.register(shutil.rmtree, _folder, True)
        return _folder


def unpack(shipment: Shipment) -> list:
    """The AgentSpecs of the shipment on this worker, their files written (once per
    content) under the worker's folder; DamagedParcel when bytes and hash differ."""
    return [_spec(parcel, shipment.files) for parcel in shipment.agents]


def _spec(parcel: Parcel, files):
    from harness.agents.specs import AgentSpec, Kind
    from harness.agents.strategy_specs import QTABLE_PREFIX

    if parcel.sha256 is None:
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
