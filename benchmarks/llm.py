"""Language-model agents: what the monitor adds to a model's own time, and whether games go
on while a model thinks.

    python benchmarks/llm.py [--delay SECONDS] [--models N] [--turns T]
                             [--family openai|llama_cpp|prose|ignores]

A scripted stand-in server (tests/llm_server.py, on 127.0.0.1, a port the OS picks)
answers every request after --delay seconds. N model agents and 2 built-ins play one
round robin of T-turn games (`--isolation process`), once with --jobs 1 (serial: one model
call at a time) and once with --jobs 2 (the pipelined runner: model calls of different
games overlap, up to `in_flight` = 4 per endpoint). Printed: requests, wall time,
requests per second, and the wall time per request beyond the server's delay (what the
client, the prompt, parsing and recording cost), and the forms the requests were asked in
(structured = "auto": the stand-in's --family takes json_schema, or refuses it once per
process, as llama-cpp-python does). Load average printed with the figures. A real model's
server: benchmarks/llm_real.py.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from harness.agents.llm.config import declared  # noqa: E402
from harness.agents.llm.model_metrics import summary  # noqa: E402
from harness.agents.specs import builtin_spec, llm_spec as spec  # noqa: E402
from harness.core.rules import FlipParams, GameLength, GameParams  # noqa: E402
from harness.engine.tournament import Settings, run_tournament  # noqa: E402
from harness.isolation.handles.opening import Isolation  # noqa: E402

from llm_server import FAMILIES, StandIn, Step  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--family", choices=FAMILIES, default="openai")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f}; "
          f"{args.models} models + 2 built-ins, {args.turns}-turn games, one round, "
          f"server delay {args.delay:g} s")
    with StandIn({"m": [Step("ACTION: C C D", delay=args.delay)]},
                 family=args.family) as server:
        models = declared({"llm": {f"m{k}": {"base_url": server.base_url, "model": "m"}
                                   for k in range(args.models)}}, ROOT, "benchmark")
        specs = [spec(f"llm:m{k}", models) for k in range(args.models)]
        specs += [builtin_spec("titfortat"), builtin_spec("defect")]
        for jobs in (1, 2):
            before = len(server.calls())
            settings = Settings(game=GameParams(flip=FlipParams(0.0, 0.0)),
                                length=GameLength(args.turns, args.turns),
                                isolation=Isolation("process", 1.0), jobs=jobs, max_rounds=1)
            began = time.monotonic()
            result = run_tournament(specs, 1, settings)
            wall = time.monotonic() - began
            requests = len(server.calls()) - before
            found = summary(result.games) or {"agents": {}}
            forms = sorted({form for m in found["agents"].values() for form in m["structured"]})
            print(f"--jobs {jobs}: {requests} requests in {wall:.2f} s: "
                  f"{requests / wall:.1f} requests/s; {wall / requests * 1000:.1f} ms per "
                  f"request ({(wall / requests - args.delay) * 1000:+.1f} ms beyond the delay "
                  f"if they ran one at a time); asked as {', '.join(forms)}")


if __name__ == "__main__":
    main()
