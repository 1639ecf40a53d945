"""How long a tournament with a few hostile agents takes under a 0.2 s call limit.

    python benchmarks/hostile_tournament.py [--isolation sandbox|process] [--max-faults N]

Every turn a spinning or sleeping agent plays costs the call limit, and its process is
killed and replaced; the figure to watch is the time beyond what the deadlines alone cost
(an agent's turns never overlap, so its timeouts x the limit), which is what killing and
replacing processes adds.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents.specs import resolve  # noqa: E402
from harness.core.fault_policy import FAULT_POLICY  # noqa: E402
from harness.core.rules import GameLength, GameParams  # noqa: E402
from harness.core.verdicts import FaultKind  # noqa: E402
from harness.engine.tournament import Settings, run_tournament  # noqa: E402
from harness.isolation.handles.opening import Isolation  # noqa: E402

HOSTILE = ROOT / "tests" / "agents" / "hostile"
HOSTILE_AGENTS = ["Spinner", "Sleeper", "OsExiter", "MemoryHog", "Thrower", "Shouter"]
HONEST = ["titfortat", "grudger", "pavlov", "random", "cooperate", "defect", "titfortwotats"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isolation", default="sandbox", choices=["sandbox", "process"])
    parser.add_argument("--timeout", type=float, default=0.2)
    parser.add_argument("--length", type=int, nargs=2, default=[10, 20])
    parser.add_argument("--max-faults", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--hostile", nargs="*", default=HOSTILE_AGENTS, metavar="NAME",
                        help="hostile agents from tests/agents/hostile")
    options = parser.parse_args()
    specs = resolve([str(HOSTILE / f"{name}.py") for name in options.hostile] + HONEST)
    settings = Settings(game=GameParams(),
                        length=GameLength(*options.length),
                        isolation=Isolation(options.isolation, options.timeout),
                        jobs=options.jobs, max_faults=options.max_faults)
    began = time.perf_counter()
    result = run_tournament(specs, 11, settings)
    elapsed = time.perf_counter() - began
    waited = _waited_timeouts(result)   # turns not asked after 3 timeouts cost nothing
    timeouts = sum(waited.values())
    crashes = sum(s.faults[FaultKind.CRASH] for s in result.standings)
    turns = sum(len(game.turns) for game in result.games)
    # one agent's turns never overlap (one process per agent): its deadlines add up
    deadlines = max(waited.values(), default=0) * options.timeout
    print(f"{options.isolation}, limit {options.timeout:g} s, {options.jobs} parallel games, "
          f"max faults {options.max_faults}")
    print(f"{len(specs)} agents ({len(options.hostile)} hostile), {len(result.rounds)} rounds, "
          f"{len(result.games)} games, {turns} turns")
    print(f"{timeouts} timeouts and {crashes} crashes (each a process killed and replaced)")
    print(f"wall time {elapsed:.1f} s; the most-timed-out agent's deadlines alone "
          f"{deadlines:.1f} s; the rest {elapsed - deadlines:.1f} s "
          f"({(elapsed - deadlines) / max(1, timeouts + crashes) * 1000:.0f} ms per process "
          "replaced, at most)")


def _waited_timeouts(result) -> dict[str, int]:
    """Per agent, the timeouts that waited out the limit (not the turns it was not asked)."""
    waited: dict[str, int] = {}
    for game in result.games:
        for side, name in (("a", game.a), ("b", game.b)):
            waited[name] = waited.get(name, 0) + sum(
                1 for _turn, fault in game.faults(side)
                if fault.kind == FaultKind.TIMEOUT and fault.message != FAULT_POLICY.not_asked)
    return waited


if __name__ == "__main__":
    main()
