"""What runs on a worker: its self-check, a chunk of a round's games, a whole tournament.

Every task answers with a JSON text (harness.run.cluster.wire), never raises: a worker that
cannot do the work as the monitor's machine would (no bubblewrap for the sandbox, another
pdharness, a language's runtime missing or of another version than the monitor's) says so
and plays nothing.
Agents run as in a local run: the same handles, sandbox, limits and time limit.
"""
from __future__ import annotations

import hashlib
import socket
import threading
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import lisp_bridge
from harness.agents.lang import LANGUAGES
from harness.agents.specs import runtime_versions
from harness.core.package import __version__, harness_folder
from harness.core.safe_text import line
from harness.engine.runners import HandlePool, PipelinedRunner, SerialRunner
from harness.engine.tournament import run_tournament

from ..cells import placings
from . import wire
from .shipment import not_loaded, unpack

if TYPE_CHECKING:
    from harness.engine.runners import HandlePool


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """The pdharness version and a hash of its code; with the runtimes of the languages
    that play (`needs`), what two machines must share to play every game the same way."""
    digest = hashlib.sha256()
    for root in (harness_folder(), Path(str(lisp_bridge.__file__)).resolve().parent):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".lisp", ".txt", ".html") and path.is_file():
                digest.update(str(path.relative_to(root.parent)).encode())
                digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def needs(isolation_mode: str, specs) -> dict:
    """What a worker must have for a run of SPECS' agents: the monitor's code, the sandbox
    if asked, and the runtime of every language that plays, at the monitor's version
    (a version None: missing at the monitor, so any will do)."""
    return {"fingerprint": fingerprint(), "sandbox": isolation_mode == "sandbox",
            "runtimes": runtime_versions(specs)}


def refusal(needed: dict) -> str | None:
    """Why this worker cannot do work that needs `needed`, or None."""
    if needed["fingerprint"] != fingerprint():
        return (f"it runs pdharness {fingerprint()}, the monitor {needed['fingerprint']}: "
                "install the same pdharness on every worker")
    if needed["sandbox"]:
        from harness.isolation.sandbox import support  # heavy (ctypes): loaded only where used

        found = support()
        if found.flavor is None:
            return f"no sandbox there ({found.reason}); --isolation sandbox needs it"

    for name, version in needed["runtimes"].items():
        language = LANGUAGES[name]
        runnable = language.can_run()
        if not runnable:
            return f"{runnable.reason}; a {name} agent plays"
        here = language.runtime_version()
        if version is not None and here != version:
            return (f"it runs {here}, the monitor {version}: install the same on every "
                    f"worker (a {name} agent plays)")
    return None


def address() -> str:
    try:
        from distributed import get_worker  # optional: distributed may not be installed

        return get_worker().address
    except (ImportError, ValueError):
        return socket.gethostname()


def check(needed: dict, dask_worker=None) -> str:
    """For `client.run`: this worker's refusal, if any, as a JSON text."""
    where = dask_worker.address if dask_worker is not None else address()
    return wire.dumps({"worker": where, "refused": refusal(needed)})


def _answer(needed: dict, work) -> str:
    """`work()`'s answer as a JSON text, or why this worker refuses, or what went wrong."""
    where = address()
    reason = refusal(needed)
    if reason:
        return wire.dumps({"worker": where, "refused": reason})
    try:
        return wire.dumps({"worker": where, **work()})
    except Exception as error:  # the monitor says it in one line, naming the worker
        return wire.dumps({"worker": where, "error": line(f"{type(error).__name__}: {error}")})


def play_games(shipment, settings, jobs, known_broken: dict, needed: dict,
               run: str) -> str:
    """A chunk of a round of the tournament `run`: the games `jobs` among the shipment's
    agents."""
    return _answer(needed, lambda: _games(shipment, settings, jobs, known_broken, run))


# Each worker thread keeps the agents' processes of the tournament it plays, from chunk to
# chunk and round to round, as a local run keeps them: an agent's process starts once per
# thread, not once per chunk (every game is a fresh agent all the same). A new tournament
# on the thread, or the monitor's `release` at the end, closes them.
_pools: dict[int, tuple[str, HandlePool]] = {}
_pools_lock = threading.Lock()


def _pool(run: str, shipment, isolation, known_broken):
    thread = threading.get_ident()
    with _pools_lock:
        held = _pools.get(thread)
    if held is not None and held[0] != run:
        _close(thread)
        held = None
    if held is None:
        held = (run, HandlePool([], isolation))
        with _pools_lock:
            _pools[thread] = held
    pool = held[1]
    for spec in unpack(shipment):
        pool.specs.setdefault(spec.name, spec)
    pool.broken.update(known_broken)   # as the monitor found them: never loaded again
    return pool


def _close(thread: int) -> dict[str, str]:
    """Close the thread's pool; what its agents printed."""
    with _pools_lock:
        held = _pools.pop(thread, None)
    if held is None:
        return {}
    pool = held[1]
    pool.close()
    return _outputs(pool)


def _outputs(pool) -> dict[str, str]:
    """What the pool's closed processes printed since last asked."""
    said = {name: pool.output(name) for name in pool.outputs if pool.output(name)}
    pool.outputs.clear()
    return said


def release(run: str, dask_worker=None) -> str:
    """For `client.run` at the end of tournament `run`: close its agents' processes on this
    worker; what they printed, as a JSON text."""
    with _pools_lock:
        threads = [thread for thread, (token, _pool) in _pools.items() if token == run]
    outputs: dict[str, str] = {}
    for thread in threads:
        for name, output in _close(thread).items():
            outputs[name] = outputs.get(name, "") + output
    return wire.dumps({"outputs": outputs})


def _games(shipment, settings, jobs, known_broken, run) -> dict:
    pool = _pool(run, shipment, settings.isolation, known_broken)
    # agents in processes: many games at once on this thread, as a local run plays them;
    # in the worker's own process (`none`): one at a time (the cluster is the parallelism)
    runner = (SerialRunner if settings.isolation.mode == "none" else PipelinedRunner)(
        pool, settings.game)
    try:
        games = runner.play(jobs)
    except BaseException:
        _close(threading.get_ident())
        raise
    return {"games": [wire.game_out(game) for game in games], "outputs": _outputs(pool)}


def play_tournament(shipment, seed: int, settings, needed: dict,
                    with_counts: bool = False) -> str:
    """A whole tournament (a replicate, an experiment's cell), its games played one by one
    on this worker's thread as a local replicate plays them."""
    return _answer(needed, lambda: _tournament(shipment, seed, settings, with_counts))


def _tournament(shipment, seed, settings, with_counts) -> dict:
    specs = unpack(shipment)
    result = run_tournament(specs, seed, replace(settings, jobs=1, cluster=None),
                            known_broken=not_loaded(shipment))
    if not with_counts:
        rows = [[s.agent, s.rank, s.score, s.dropped_in] for s in result.standings]
        return {"rounds": len(result.rounds), "games": len(result.games), "standings": rows}
    rows = [[agent, rank, score, dropped_in, *counts]
            for agent, _type, rank, score, dropped_in, *counts in placings(result)]
    return {"rounds": len(result.rounds), "games": len(result.games), "standings": rows,
            "not_loaded": _as_the_monitor_names(result.load_errors, specs, shipment)}


def _as_the_monitor_names(load_errors: dict, specs, shipment) -> dict:
    """Why agents did not load, naming their files as the monitor does, not as this
    worker's copies: the same words a local run says."""
    sources = {spec.name: (spec.source, parcel.source)
               for spec, parcel in zip(specs, shipment.agents, strict=True)}
    return {name: why.replace(*sources[name]) if name in sources else why
            for name, why in load_errors.items()}
