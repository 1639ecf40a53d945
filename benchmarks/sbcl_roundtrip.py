"""Per-call round trip to the SBCL host, by history length (target: under 30 us each).

A real host serves a real agent file; the monitor sends only the last turn each call and
the host keeps the history, so the cost should not grow with the game. One move per turn,
so a history of N moves is N calls in.

    python benchmarks/sbcl_roundtrip.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

AGENT = """(defun BenchTft (hist score)
  (declare (ignore score))
  (if (null hist) (list 'C) (list (second (car (last hist))))))
"""
REPEATS = 300


def main() -> None:
    from harness.agents import file_spec
    from harness.handles.base import GameStart
    from harness.handles.opening import Isolation, open_handle
    from harness.rules import Payoffs

    folder = Path(tempfile.mkdtemp())
    path = folder / "BenchTft.lisp"
    path.write_text(AGENT)
    began = time.perf_counter()
    handle = open_handle(file_spec(path), Isolation("process", timeout=5.0))
    print(f"host start to ready: {(time.perf_counter() - began) * 1000:.1f} ms")
    for length in (1, 100, 300):
        samples = []
        for _repeat in range(REPEATS):
            handle.start_game(GameStart(1, 1, Payoffs()))
            last = None
            for _ in range(length - 1):     # a history of length - 1 moves, untimed
                handle.request(last)
                handle.collect()
                last = ("C", "D")
            began = time.perf_counter()     # then one call, the length-th
            handle.request(last)
            handle.collect()
            samples.append(time.perf_counter() - began)
        samples.sort()
        print(f"history {length:>3} moves: median {samples[len(samples) // 2] * 1e6:6.1f} us, "
              f"best {samples[0] * 1e6:6.1f} us per call ({REPEATS} calls)")
    handle.close()


if __name__ == "__main__":
    main()
