"""How long an agent's host takes to start, with and without the sandbox.

    python benchmarks/sandbox_start.py [--repeat N]

Prints, for each kind of agent, the median time from asking for a process to the host's
READY line (what a tournament pays once per agent and worker, and again for every process
it kills and replaces), under `--isolation process` and `--isolation sandbox`, the cost
of bubblewrap alone, and of making and removing an agent's cgroup.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents.specs import builtin_spec, file_spec  # noqa: E402
from harness.isolation import confinement, sandbox  # noqa: E402
from harness.isolation.handles.opening import Isolation, open_handle  # noqa: E402

AGENTS = {
    "python": ("Bench.py", "def Bench(hist, score):\n    return ['C', 'C', 'C']\n"),
    "hy": ("Bench.hy", "(defn Bench [hist score] [\"C\" \"C\" \"C\"])\n"),
    "lisp": ("Bench.lisp", "(defun Bench (hist score) (declare (ignore hist score)) '(C C C))\n"),
}


def median_ms(action, repeat: int) -> float:
    """The median time `action` takes; what it returns is closed outside the timing."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - began)
        if result is not None:
            result.close()
    return statistics.median(times) * 1000


def host_start(spec, mode: str):
    return open_handle(spec, Isolation(mode, 5.0))


def bwrap_alone() -> None:
    subprocess.run(["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
                    "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true"], check=True)


def cgroup_round_trip() -> None:
    """What confining one host costs the monitor besides the start: making its cgroup (or
    the no-fork instruction) and removing it once the host is gone."""
    per_agent = confinement.per_agent(1 << 30)
    if per_agent.release is not None:
        per_agent.release()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    repeat = parser.parse_args().repeat
    found = sandbox.support()
    print(f"sandbox here: {sandbox.describe()}")
    print(f"per agent: {confinement.describe()}")
    if found.flavor is not None:
        print(f"{'bwrap alone (true)':28} {median_ms(bwrap_alone, repeat):8.1f} ms")
    print(f"{'cgroup made and removed':28} {median_ms(cgroup_round_trip, repeat):8.2f} ms")
    with tempfile.TemporaryDirectory() as folder:
        specs = {"builtin": builtin_spec("titfortat")}
        for language, (name, source) in AGENTS.items():
            path = Path(folder) / name
            path.write_text(source)
            specs[language] = file_spec(path)
        print(f"{'host start to READY':28} {'process':>8} {'sandbox':>8} {'extra':>8}")
        for language, spec in specs.items():
            try:
                plain = median_ms(lambda spec=spec: host_start(spec, "process"), repeat)
                boxed = (median_ms(lambda spec=spec: host_start(spec, "sandbox"), repeat)
                         if found.flavor is not None else float("nan"))
            except Exception as error:  # a language whose host is not available here
                print(f"{language:28} not available: {error}")
                continue
            print(f"{language:28} {plain:6.1f}ms {boxed:6.1f}ms {boxed - plain:6.1f}ms")


if __name__ == "__main__":
    main()
