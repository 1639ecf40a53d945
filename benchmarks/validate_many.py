"""How long `pdharness validate` takes for a folder of many submissions.

Writes N distinct submissions with `pdharness new` (Python, Hy and Common Lisp in turn, tit
for tat) into a temporary folder, validates them all in one run of the real command, and
prints the wall time, the time per submission and the verdict line. A few broken ones
(every tenth answers badly) make sure failures cost no more than passes.

    python benchmarks/validate_many.py [N] [--isolation sandbox|process] [--jobs J]
"""
from __future__ import annotations

import argparse
import shutil
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ("py", "hy", "lisp")
BREAKAGE = {"py": ('return ["C", "C", "C"]', 'return ["C", "X", "C"]'),
            "hy": ("['C 'C 'C]", "['C 'X 'C]"),
            "lisp": ("(list 'C 'C 'C)", "(list 'C 'X 'C)")}


def team(number: int) -> list[str]:
    """Two distinct made-up last names per team, unique over the run."""
    letters = string.ascii_lowercase
    tag = letters[number % 26] + letters[number // 26 % 26] + letters[number // 676 % 26]
    return ["Ab" + tag, "Zy" + tag]


def write_submissions(folder: Path, count: int) -> None:
    """`pdharness new` for the first team of each language, copies renamed for the rest
    (starting the command hundreds of times would measure Python's start-up instead)."""
    templates = {}
    for language in LANGUAGES:
        subprocess.run([sys.executable, "-m", "harness", "new", "Template", "--lang",
                        language, "--dir", str(folder / "templates")], check=True,
                       capture_output=True, cwd=ROOT)
        templates[language] = (folder / "templates" / f"Template.{language}").read_text()
    shutil.rmtree(folder / "templates")
    for number in range(count):
        language = LANGUAGES[number % 3]
        members = team(number)
        name = "".join(members)
        text = templates[language].replace("Template", name)
        if number % 10 == 9:
            text = text.replace(*BREAKAGE[language])
        (folder / f"{name}.{language}").write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", type=int, nargs="?", default=300)
    parser.add_argument("--isolation", default="sandbox")
    parser.add_argument("--jobs", type=int)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pdharness-validate-"))
    try:
        write_submissions(folder, options.count)
        command = [sys.executable, "-m", "harness", "validate", str(folder), "--isolation",
                   options.isolation]
        if options.jobs:
            command += ["--jobs", str(options.jobs)]
        began = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        elapsed = time.perf_counter() - began
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    lines = done.stdout.strip().splitlines()
    print(lines[-1] if lines else done.stderr.strip())
    expected_failures = sum(1 for n in range(options.count) if n % 10 == 9)
    print(f"{options.count} submissions ({options.isolation}, jobs {options.jobs or 'default'},"
          f" {expected_failures} broken): {elapsed:.1f} s, "
          f"{elapsed / options.count * 1000:.0f} ms each")


if __name__ == "__main__":
    main()
