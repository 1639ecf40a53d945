"""What the bundled Python and Hy agents cost by themselves: the floor under any harness.

    python benchmarks/agent_cost.py [--games 200] [--turns 35]

For each Python and Hy agent in student_agents/, in this process and with no isolation at
all: the CPU time of a fresh game start (a new runtime: the agent's module run anew with
its seeded random, as every game's process does) and of one call (recording the last turn
and calling the agent, with a history as long as `--turns` turns make), as the host's
game process runs them (harness/agents/runtime.py). No process is started, nothing is piped: what
is printed is what the agent's own code and the runtime around it cost, which a class
tournament pays in every game whatever the isolation (`benchmarks/class.py` plays 35
turns a game on average). Common Lisp agents run only in an SBCL host: see
benchmarks/sbcl_roundtrip.py.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents import lang, pyload  # noqa: E402
from harness.agents.runtime import AgentRuntime  # noqa: E402
from harness.core.rules import Payoffs  # noqa: E402


def runtime_for(path: Path) -> AgentRuntime:
    language = lang.BY_SUFFIX[path.suffix]
    language.preload_in_host(path)
    code = language.checked_code(path, path.stem)
    factory = pyload.code_factory(code, path, path.stem, check=False)
    return AgentRuntime(factory, language.pairs())


def measure(path: Path, games: int, turns: int) -> tuple[float, float]:
    """(CPU seconds per game start, per call)."""
    runtime = runtime_for(path)
    payoffs = Payoffs(5, 3, 1, 0)
    started = time.process_time()
    for seed in range(games):
        runtime.start_game(seed, 3, payoffs)
    per_start = (time.process_time() - started) / games
    calls = 0
    started = time.process_time()
    for seed in range(max(1, games // 10)):
        runtime.start_game(seed, 3, payoffs)
        for turn in range(turns):
            if turn:
                runtime.record("CCD", "DCC")
            runtime.call()
            calls += 1
    return per_start, (time.process_time() - started) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--turns", type=int, default=35)
    options = parser.parse_args()
    print(f"agent_cost.py: {options.games} game starts, calls over {options.turns}-turn "
          f"games; load average {' '.join(f'{x:.1f}' for x in __import__('os').getloadavg())}")
    starts, calls = [], []
    for path in sorted((ROOT / "student_agents").iterdir()):
        if path.suffix not in (".py", ".hy") or path.stem.startswith("_"):
            continue
        per_start, per_call = measure(path, options.games, options.turns)
        starts.append(per_start)
        calls.append(per_call)
        print(f"  {path.name:24} start {per_start * 1e6:7.0f} us   call {per_call * 1e6:6.1f} us"
              f"   a {options.turns}-turn game {1e3 * (per_start + options.turns * per_call):5.2f} ms")
    game = statistics.mean(starts) + options.turns * statistics.mean(calls)
    print(f"  mean: a {options.turns}-turn game of one of these agents costs {game * 1e3:.2f} ms "
          "of CPU in its own code and the runtime, before any process or pipe")


if __name__ == "__main__":
    main()
