"""`axelrod:NAME`: a strategy of the Axelrod library as an agent, by its class name.

The library (`pdharness[axelrod]`, pinned to `AXELROD_VERSION`) takes 13-15 s of CPU to
import, so nothing here imports it: what a spec is checked against (which names exist, and
Axelrod's classifier of each: memory depth, stochastic, long run time, whether it cheats)
is the library's own catalogue, written once into `axelrod_strategies.json` by
`python -m harness.isolation.axelrod_host --catalogue` and held equal to the installed
library by tests/test_axelrod.py. So `list-strategies`, an unknown name and a refused one
answer at once, with or without the library installed; only playing one needs it (the
Axelrod host, harness/isolation/axelrod_host.py).

Refused, each with one line: a name the library does not have (with the close ones), a
strategy Axelrod classifies as cheating (it reads or changes its opponent or its own class
between games, which an opponent served from elsewhere cannot allow, and which breaks
fresh games), and one of long run time unless the run allows those (`--allow-long-run`,
applied as it is read, as `--max-bundle-mib` is).
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.core.errors import AgentNotFound

AXELROD_PREFIX = "axelrod:"
AXELROD_VERSION = "4.13.0"
CATALOGUE = Path(__file__).with_name("axelrod_strategies.json")
INSTALL_HINT = "pip install 'pdharness[axelrod]'"


@dataclass(frozen=True)
class AxelrodStrategy:
    name: str                  # the class name: what `axelrod:NAME` spells
    label: str                 # Axelrod's own name for it ("Tit For Tat")
    memory_depth: int | None   # None: unbounded (Axelrod's float("inf"))
    stochastic: bool
    long_run_time: bool
    cheats: bool               # inspects_source, manipulates_source or manipulates_state

    @property
    def spec(self) -> str:
        return AXELROD_PREFIX + self.name

    def as_dict(self) -> dict:
        return {"name": self.spec, "label": self.label, "memory_depth": self.memory_depth,
                "stochastic": self.stochastic, "long_run_time": self.long_run_time,
                "cheats": self.cheats}


@lru_cache(maxsize=1)
def catalogue() -> dict[str, AxelrodStrategy]:
    """{class name: its entry}, in the library's order of names."""
    rows = json.loads(CATALOGUE.read_text(encoding="utf-8"))["strategies"]
    return {row["name"]: AxelrodStrategy(**row) for row in rows}


_allow_long_run = [False]


def allow_long_run(allowed: bool | None) -> None:
    """Whether specs of long run time are played from now on (--allow-long-run). Set once
    per run by the command line, before any agent is resolved."""
    _allow_long_run[0] = bool(allowed)


def is_axelrod(argument: str) -> bool:
    return argument.startswith(AXELROD_PREFIX)


def class_name(source: str) -> str:
    """`axelrod:TitForTat` -> `TitForTat`."""
    return source[len(AXELROD_PREFIX):]


def axelrod_strategy(argument: str) -> AxelrodStrategy:
    """The strategy `axelrod:NAME` names, checked (AgentNotFound, one line, if refused)."""
    name = class_name(argument)
    known = catalogue()
    strategy = known.get(name) or {key.lower(): value for key, value in known.items()}.get(
        name.lower())   # class names are not a student's to spell in the right case
    if strategy is None:
        raise AgentNotFound(_unknown(argument, name, known))
    if strategy.cheats:
        raise AgentNotFound(f"{argument}: Axelrod classifies it as cheating (it reads or "
                            "changes its opponent's or its own code), which an agent "
                            "served from another process cannot allow; not played")
    if strategy.long_run_time and not _allow_long_run[0]:
        raise AgentNotFound(f"{argument}: Axelrod classifies it as of long run time; "
                            "pass --allow-long-run to play it")
    return strategy


def _unknown(argument: str, name: str, known: dict[str, AxelrodStrategy]) -> str:
    by_lower = {key.lower(): key for key in known}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.6)
    guess = (f"; did you mean {' or '.join(AXELROD_PREFIX + by_lower[c] for c in close)}?"
             if close else "")
    return (f"unknown agent {argument!r}: the Axelrod library {AXELROD_VERSION} has no "
            f"strategy of that class name{guess} (pdharness list-strategies shows them)")


def suggestion_for(name: str) -> str | None:
    """For a bare name that is one of Axelrod's class names (any case): the spec that plays
    it (`TitForTat` -> `axelrod:TitForTat`)."""
    by_lower = {key.lower(): key for key in catalogue()}
    found = by_lower.get(name.lower())
    return AXELROD_PREFIX + found if found else None
