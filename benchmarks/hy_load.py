"""Loading a Hy agent that requires hyrule: first load vs cached load, and what a host pays.

Every figure is measured in a fresh Python process (as a host process is), with a harness
cache of its own, best of 5 except the first load:

- first load: empty cache; hyrule's bytecode and the agent's code are compiled and kept;
- cached load (the monitor, `--isolation none`): both read back from the cache;
- host load: hosts never write the cache, so they compile the agent's file each time they
  start (hyrule's bytecode was cached by the monitor beforehand);
- per game: each game re-executes the agent's module code in fresh globals.

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
import sys, time, random, uuid
from pathlib import Path
began = time.perf_counter()
import hy
hy_import = time.perf_counter() - began
from harness.agents.lang import hy_loading
path = Path(sys.argv[1])
if sys.argv[2] == "host":
    hy_loading.serve_read_only()
    copy = Path(sys.argv[3]) / path.name
    copy.write_text(f";; {uuid.uuid4()}\\n" + path.read_text())  # code never seen before
    path = copy
began = time.perf_counter()
factory = hy_loading.load_factory(path, path.stem)
load = time.perf_counter() - began
began = time.perf_counter()
for seed in range(200):
    factory(random.Random(seed), 3)
per_game = (time.perf_counter() - began) / 200
print(hy_import, load, per_game)
"""


def measure(cache: str, mode: str, scratch: str) -> tuple[float, float, float]:
    env = dict(os.environ, PDHARNESS_CACHE=cache, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE, str(AGENT), mode, scratch], env=env,
                          capture_output=True, text=True, check=True)
    hy_import, load, per_game = map(float, done.stdout.split())
    return hy_import, load, per_game


def main() -> None:
    cache, scratch = tempfile.mkdtemp(), tempfile.mkdtemp()
    _, first, _ = measure(cache, "monitor", scratch)
    cached = [measure(cache, "monitor", scratch) for _ in range(5)]
    hosted = [measure(cache, "host", scratch) for _ in range(5)]
    ms = lambda seconds: f"{seconds * 1000:8.1f} ms"  # noqa: E731
    print(f"{AGENT.name} (requires hyrule); times after `import hy` "
          f"({ms(min(c[0] for c in cached)).strip()}):")
    print(f"  first load (compiles hyrule and the agent): {ms(first)}")
    print(f"  cached load (the monitor, best of 5):        {ms(min(c[1] for c in cached))}")
    print(f"  host load (compiles the agent, best of 5):  {ms(min(h[1] for h in hosted))}")
    print(f"  per game (fresh module globals):            {ms(min(c[2] for c in cached))}")


if __name__ == "__main__":
    main()
