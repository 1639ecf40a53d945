"""Loading a Hy agent that requires hyrule: first load (compiles) vs cached load.

Each load runs in a fresh Python process, as a host does, with a fresh harness cache.

    python benchmarks/hy_load.py
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENT = ROOT / "student_agents" / "IvanovJones.hy"
PROBE = """
import sys, time
import hy
from lisp_bridge.hy_loader import load_factory
from pathlib import Path
began = time.perf_counter()
load_factory(Path(sys.argv[1]), "IvanovJones")
print(time.perf_counter() - began)
"""


def load_once(cache: str) -> float:
    env = dict(os.environ, PDHARNESS_CACHE=cache, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE, str(AGENT)], env=env,
                          capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def main() -> None:
    cache = tempfile.mkdtemp()
    first = load_once(cache)
    cached = min(load_once(cache) for _ in range(5))
    print(f"{AGENT.name} (requires hyrule), after `import hy`:")
    print(f"  first load (compiles, fills the cache): {first * 1000:7.1f} ms")
    print(f"  cached load (best of 5):                {cached * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
