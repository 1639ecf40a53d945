"""Per-call round trip to the SBCL host, by history length (target: under 30 us each).

A real host serves a real agent file through the real ProcessHandle (isolation `process`).
The monitor sends only the last turn each call and the host keeps the history, so the cost
should not grow with the game. One move per turn; "history N" is a call whose hist holds N
moves. The first call of a game is reported apart: it also waits for the agent's fresh
reload (every game starts from a freshly loaded file, see docs/DESIGN.md).

    python benchmarks/sbcl_roundtrip.py [--repeats N]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

AGENT = """(defparameter *BenchTft-calls* 0)

(defun BenchTft (hist score)
  (declare (ignore score))
  (incf *BenchTft-calls*)
  (if (null hist) (list 'C) (list (second (car (last hist))))))
"""
LENGTHS = (1, 100, 300)


def timed_call(handle, last) -> float:
    began = time.perf_counter()
    handle.request(last)
    reply = handle.collect()
    elapsed = time.perf_counter() - began
    if reply.fault is not None:
        raise SystemExit(f"the agent faulted: {reply.fault}")
    return elapsed


def figures(samples: list[float]) -> str:
    samples = sorted(samples)
    return (f"median {samples[len(samples) // 2] * 1e6:6.1f} us, "
            f"p90 {samples[len(samples) * 9 // 10] * 1e6:6.1f} us, "
            f"best {samples[0] * 1e6:6.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=300, help="timed calls per length")
    repeats = parser.parse_args().repeats

    from harness.agents.cache import cache_dir
    from harness.agents.specs import file_spec
    from harness.core.rules import Payoffs
    from harness.isolation.handles.agent_handle import GameStart
    from harness.isolation.handles.opening import Isolation, open_handle
    from lisp_bridge import sbcl

    if not sbcl.available():
        raise SystemExit(sbcl.missing_message())
    path = Path(tempfile.mkdtemp()) / "BenchTft.lisp"
    path.write_text(AGENT)
    sbcl.server_fasl(cache_dir())  # compiled once per machine; not part of a host's start
    starts = []
    for _ in range(11):  # the first also pays for the monitor's imports
        began = time.perf_counter()
        open_handle(file_spec(path), Isolation("process", timeout=5.0)).close()
        starts.append(time.perf_counter() - began)
    print(f"{sbcl.version()}; host start to READY (compiling the agent's file included): "
          f"first {starts[0] * 1e3:.1f} ms, then median {sorted(starts[1:])[5] * 1e3:.1f} ms")
    handle = open_handle(file_spec(path), Isolation("process", timeout=5.0))
    try:
        first_calls = []
        by_length = {length: [] for length in LENGTHS}
        for _repeat in range(repeats):
            for length in LENGTHS:
                handle.start_game(GameStart(1, 1, Payoffs()))
                first_calls.append(timed_call(handle, None))
                for _ in range(length - 1):           # untimed, to grow the history
                    handle.request(("C", "D"))
                    handle.collect()
                by_length[length].append(timed_call(handle, ("C", "D")))
                handle.end_game()
        print(f"first call of a game (fresh reload): {figures(first_calls)}")
        for length in LENGTHS:
            print(f"history {length:>3} moves: {figures(by_length[length])} per call "
                  f"({repeats} calls)")
    finally:
        handle.close()


if __name__ == "__main__":
    main()
