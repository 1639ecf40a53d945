"""How long `pdharness validate` takes for a folder of many submissions.

Writes N distinct tit-for-tat submissions (Python, Hy and Common Lisp in turn) into a
temporary folder and validates them all in one run.

    python benchmarks/validate_many.py [N] [--isolation sandbox|process]
"""
from __future__ import annotations

import argparse
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def team(number: int) -> list[str]:
    letters = string.ascii_lowercase
    first = "A" + letters[number % 26] + letters[number // 26 % 26] + "x"
    return [first, "Zed" + letters[number % 26] + letters[number // 26 % 26]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", type=int, nargs="?", default=300)
    parser.add_argument("--isolation", default="sandbox")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    languages = ["py", "hy", "lisp"]
    for number in range(options.count):
        subprocess.run([sys.executable, "-m", "harness", "new", *team(number), "--lang",
                        languages[number % 3], "--dir", str(folder)], check=True,
                       capture_output=True, cwd=ROOT)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "harness", "validate", str(folder),
                           "--isolation", options.isolation], capture_output=True, text=True,
                          cwd=ROOT)
    elapsed = time.perf_counter() - began
    print(done.stdout.strip().splitlines()[-1])
    print(f"{options.count} submissions ({options.isolation}): {elapsed:.1f} s, "
          f"{elapsed / options.count * 1000:.0f} ms each")


if __name__ == "__main__":
    main()
