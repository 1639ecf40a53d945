"""A/B: one benchmark script run against two source folders in turn, medians and ratios.

    python benchmarks/compare_commits.py A_FOLDER B_FOLDER [--runs N] -- SCRIPT [ARGS...]

A_FOLDER and B_FOLDER are two checkouts of pdharness (e.g. a detached worktree of an older
commit, `git worktree add --detach /tmp/before REV`, and this one). The runs alternate
A B B A A B ... so a load that rises or falls during the comparison weighs on both sides
alike; the load average is printed before every run. SCRIPT is a path inside each folder
(`benchmarks/game_start.py`): each side runs its own copy, so a script that follows the
code's internals across a refactor still compares like with like, as long as it prints
the same lines. With `--script FILE` one file is run against both folders instead: the
folder's `harness` and `lisp_bridge` are imported before FILE runs, so FILE's own
`sys.path` entry does not matter (for scripts that import the harness in their own
process, not for ones that start `python` on their own folder, such as hy_load.py).

Every line of output is read as a template (its text with each number replaced by #) and
its numbers; lines with the same template on both sides are paired, and each number is
shown as the median on A -> the median on B (B/A ratio). Whether higher is better
depends on the figure: moves/s (higher), ms and seconds (lower).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

SLOT = "\x00"  # where a number was, in a line's template
NUMBER = re.compile(r"(?<![A-Za-z_\d])-?\d[\d,]*(?:\.\d+)?")

BOOTSTRAP = """import runpy, sys
root, script = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
import harness, lisp_bridge  # this folder's packages, before the script's own sys.path
sys.argv = sys.argv[2:]
runpy.run_path(script, run_name="__main__")
"""


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def command(folder: Path, script: str, arguments: list[str], one_file: bool) -> list[str]:
    if one_file:
        return [sys.executable, "-c", BOOTSTRAP, str(folder), script, *arguments]
    return [sys.executable, str(folder / script), *arguments]


def parse(output: str) -> dict[str, list[float]]:
    """template -> numbers, for every line that has a number (repeated templates numbered)."""
    lines = {}
    for line in output.splitlines():
        numbers = [float(text.replace(",", "")) for text in NUMBER.findall(line)
                   if text.replace(",", "")]
        if not numbers or "load average" in line:
            continue
        template = " ".join(NUMBER.sub(SLOT, line).split())  # alignment spaces vary with numbers
        key, copy = template, 1
        while key in lines:
            copy += 1
            key = f"{template} [{copy}]"
        lines[key] = numbers
    return lines


def shown(value: float) -> str:
    if value >= 1000 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:.3g}" if value < 10 else f"{value:.1f}"


def change(a: float, b: float) -> str:
    if a == b:  # a constant (a count, a version): printed as it is
        return shown(a)
    return f"{shown(a)} -> {shown(b)} ({b / a:.2f})" if a else f"{shown(a)} -> {shown(b)}"


def compare(runs_a: list[dict], runs_b: list[dict]) -> None:
    for template in runs_a[0]:
        sides = []
        for runs in (runs_a, runs_b):
            rows = [run[template] for run in runs if template in run]
            if not rows or any(len(row) != len(rows[0]) for row in rows):
                break
            sides.append([statistics.median(column) for column in zip(*rows, strict=True)])
        if len(sides) < 2 or len(sides[0]) != len(sides[1]):
            print(f"(only in A, or numbered differently) {template.replace(SLOT, '#')}")
            continue
        pieces = [change(a, b) for a, b in zip(*sides, strict=True)]
        parts = template.split(SLOT)
        print(parts[0] + "".join(piece + part for piece, part in
                                 zip(pieces, parts[1:], strict=True)))
    for template in runs_b[0]:
        if template not in runs_a[0]:
            print(f"(only in B) {template.replace(SLOT, '#')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="source folder A (e.g. before)")
    parser.add_argument("b", type=Path, help="source folder B (e.g. after)")
    parser.add_argument("--runs", type=int, default=3, help="runs per side")
    parser.add_argument("--script", metavar="FILE",
                        help="run this one file against both folders, not each one's copy")
    parser.add_argument("--show", action="store_true", help="print every run's output")
    parser.add_argument("command", nargs="+", metavar="SCRIPT [ARGS]")
    options = parser.parse_args()
    script, arguments = options.command[0], options.command[1:]
    if options.script:
        arguments = options.command
        script = str(Path(options.script).resolve())
    outputs = {"A": [], "B": []}
    folders = {"A": options.a.resolve(), "B": options.b.resolve()}
    for side, folder in folders.items():
        if not (folder / script).is_file() and not options.script:
            parser.error(f"{side}: {folder} holds no {script} (a folder is a checkout, "
                         "e.g. `git worktree add --detach /tmp/before REV`, not a commit)")
    order = [side for pair in range(options.runs)
             for side in (("A", "B") if pair % 2 == 0 else ("B", "A"))]
    for number, side in enumerate(order, 1):
        folder = folders[side]
        began, before = time.perf_counter(), load()
        done = subprocess.run(command(folder, script, arguments, bool(options.script)),
                              cwd=folder, capture_output=True, text=True)
        print(f"run {number}/{len(order)} {side} ({folder}): {time.perf_counter() - began:.0f} s,"
              f" load average {before} -> {load()}, exit {done.returncode}", flush=True)
        if options.show or done.returncode != 0:
            print(done.stdout + done.stderr[-2000:], flush=True)
        if done.returncode == 0:
            outputs[side].append(parse(done.stdout))
    if not outputs["A"] or not outputs["B"]:
        raise SystemExit("no successful run on one side: nothing to compare")
    print(f"\nmedians of {len(outputs['A'])} runs of A -> {len(outputs['B'])} runs of B "
          f"(B/A); A = {folders['A']}, B = {folders['B']}")
    compare(outputs["A"], outputs["B"])


if __name__ == "__main__":
    main()
