"""What a heavy import costs an agent per game: a Python agent whose top level imports
hyrule (about a second and a half here: its Hy modules compile, no bytecode is written).

    python benchmarks/heavy_import.py [--games N] [--isolation sandbox|process]
                                      [--library hyrule|numpy|...]

One handle plays N short games (3 turns) against a built-in inside the monitor, with a
10 s call limit so that no game faults: the wall time to open the handle (its host's start
and the agent's first load) and the mean wall time of a game are printed, with the load.
Before imports were paid once, every game's fresh process imported the library again, inside its first
call; since, the host imports the declared libraries the file imports at its top level
once, before it forks any game. Run it from a checkout of each commit to compare.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents.specs import builtin_spec, file_spec  # noqa: E402
from harness.core.rules import GameParams  # noqa: E402
from harness.engine.game import play_game  # noqa: E402
from harness.isolation.handles.opening import Isolation, open_handle  # noqa: E402

AGENT = "import {library}  # noqa: F401\n\n\ndef Heavy(hist, score):\n    return ['C', 'C', 'C']\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--isolation", default="sandbox", choices=("sandbox", "process"))
    parser.add_argument("--library", default="hyrule",
                        help="what the agent imports (declared, where agents declare them)")
    options = parser.parse_args()
    import harness

    folder = Path(tempfile.mkdtemp(prefix="pdharness-heavy-"))
    name = "Heavy.py"
    (folder / name).write_text(AGENT.format(library=options.library))
    declared = {"agent_packages": (options.library,)} if "agent_packages" in getattr(
        Isolation, "__dataclass_fields__", {}) else {}   # before agent packages: no declaration
    isolation = Isolation(options.isolation, timeout=10.0, **declared)
    started = time.monotonic()
    agent = open_handle(file_spec(folder / name), isolation)
    opened = time.monotonic() - started
    opponent = open_handle(builtin_spec("cooperate"), Isolation("none", timeout=10.0))
    games, faults = [], 0
    for number in range(options.games):
        began = time.monotonic()
        record = play_game(agent, opponent, 3, number + 1, GameParams())
        games.append(time.monotonic() - began)
        faults += len(record.fault_at)
    agent.close()
    opponent.close()
    load = os.getloadavg()
    print(f"harness from {Path(harness.__file__).parent.parent}, import {options.library}, "
          f"--isolation {options.isolation}, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"open (host start and first load): {opened:.2f} s")
    print(f"per game ({options.games} games of 3 turns): mean {statistics.mean(games):.3f} s, "
          f"median {statistics.median(games):.3f} s, first {games[0]:.3f} s; faults {faults}")


if __name__ == "__main__":
    main()
