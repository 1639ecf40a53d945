"""The worst time per KB of every reader of untrusted text.

Each reader (Lisp forms, the monitor form, the static reads of Python, Hy and Lisp
submissions, the Team line, rosters, the course file) is run on the adversarial inputs that
once broke a reader (deep nesting, huge numbers, long runs of one character, #% with
%3000000) at growing sizes, then on random inputs drawn with the fuzz tests' strategies
(tests/fuzz_inputs.py). It prints, per reader, the worst milliseconds per KB found and the
input that gave it. Time linear in the size shows as a per-KB figure that does not grow
with the size.

    python benchmarks/readers_worst_case.py [--random N] [--sizes 16,64,256]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


# -- the readers, each taking text and swallowing only its own one-line problem --------
def lisp_forms(text: str):
    from lisp_bridge.sexpr import LispSyntaxError, read_all

    try:
        read_all(text)
    except LispSyntaxError:
        pass


def monitor_form(text: str):
    from harness.cli.commands.options import MAX_GAME_LENGTH
    from lisp_bridge.monitor_call import MonitorFormError, parse_monitor_call

    try:
        parse_monitor_call(f"(monitor '(.25 .1) '(10 50) '(#'random {text}))", MAX_GAME_LENGTH)
    except MonitorFormError:
        pass


def static(language: str, suffix: str):
    def read(text: str):
        from harness.validation.static import check_file

        check_file(Path(f"AdamsBaker{suffix}"), language, text, [])
    return read


def team_line(text: str):
    from harness.validation.naming import declared_team

    declared_team(text)


def roster(text: str):
    from harness.core.errors import HarnessError
    from harness.validation.roster import Roster

    with tempfile.NamedTemporaryFile(suffix=".csv") as file:
        file.write(text.encode("utf-8", errors="surrogatepass"))
        file.flush()
        try:
            Roster.read(Path(file.name))
        except HarnessError:
            pass


def course_file(text: str):
    from harness.cli import cli, course
    from harness.core.errors import HarnessError

    with tempfile.NamedTemporaryFile(suffix=".toml") as file:
        file.write(text.encode("utf-8", errors="surrogatepass"))
        file.flush()
        try:
            course.read(Path(file.name), cli.get_command(None, "tournament"), "tournament")
        except HarnessError:
            pass


READERS = {
    "lisp forms (sexpr)": lisp_forms,
    "monitor form": monitor_form,
    "static python": static("python", ".py"),
    "static hy": static("hy", ".hy"),
    "static lisp": static("lisp", ".lisp"),
    "team line": team_line,
    "roster csv": roster,
    "course file": course_file,
}


# -- adversarial inputs, by size in KB ------------------------------------------------------
def adversarial(kb: int) -> dict[str, str]:
    n = kb * 1024
    return {
        "deep parens": "(" * (n // 2) + ")" * (n // 2),
        "deep quotes": "'" * (n - 1) + "x",
        "deep brackets": "[" * (n // 2) + "]" * (n // 2),
        "deep additions (python)": "x = " + "+".join(["1"] * (n // 2)) + "\n",
        "deep #+ (lisp)": "#+sbcl " * (n // 7) + "x",
        "huge integer": "9" * n,
        "huge ratio": "9" * (n // 2) + "/" + "7" * (n // 2 - 1),
        "huge float": "1." + "9" * (n - 6) + "e99",
        "huge radix 3": "#3r" + "1" * (n - 3),
        "huge complex": "#c(" + "9" * (n - 7) + " 1)",
        "space run in a Team line": "# Team: a" + " " * (n - 12) + "!1\n",
        "space run before a separator": "# Team: a" + " " * (n - 12) + "b,c\n",
        "long symbol": "a" * n,
        "long string": '"' + "a" * (n - 2) + '"',
        "many |escaped| bars": "|\\|" * (n // 3),
        "many backslashes": "\\" * n,
        "block comments": "#|" * (n // 4) + "|#" * (n // 4),
        "hyrule #% with a huge %N": "(setv F #%(+ %" + "9" * (n - 20) + " 1))",
        "csv: one huge quoted cell": 'Team,Members\r\n1,"' + "Adams " * (n // 6) + '"\r\n',
        "csv: CR-only rows": "Team,Last name\r" + "1,Adams\r" * (n // 8),
        "csv: separators only": ",;\t" * (n // 3),
        "toml: deep arrays": "flip = " + "[" * (n // 2 - 4) + "]" * (n // 2 - 4) + "\n",
        "toml: huge integer": "seed = " + "9" * (n - 8) + "\n",
    }


def timed(reader, text: str) -> float:
    """CPU seconds of this process: on a shared machine wall time measures the neighbours."""
    start = time.process_time()
    reader(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=60, help="random inputs per reader")
    parser.add_argument("--sizes", default="16,64,256", help="adversarial sizes in KB")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    for reader in READERS.values():
        reader("(a)")  # imports and the SBCL features query are not reading
    worst: dict[str, tuple[float, str]] = {name: (0.0, "") for name in READERS}
    for kb in sizes:
        for shape, text in adversarial(kb).items():
            for name, reader in READERS.items():
                seconds = timed(reader, text)
                per_kb = 1000 * seconds / max(len(text) / 1024, 1)
                if per_kb > worst[name][0]:
                    worst[name] = (per_kb, f"{shape}, {kb} KB")
    for name, reader in READERS.items():
        for text in random_inputs(name, args.random):
            seconds = timed(reader, text)
            per_kb = 1000 * seconds / max(len(text) / 1024, 1)
            if per_kb > worst[name][0]:
                worst[name] = (per_kb, f"random, {len(text) / 1024:.1f} KB")
    print(f"{'reader':<22} {'worst ms/KB':>11}  input that gave it")
    for name, (per_kb, what) in worst.items():
        print(f"{name:<22} {per_kb:>11.2f}  {what}")
    print(f"(CPU time; adversarial sizes {args.sizes} KB, {args.random} random inputs per "
          "reader; inputs under 1 KB count as 1 KB)")


def random_inputs(reader_name: str, count: int) -> list[str]:
    """COUNT inputs drawn, with a fixed seed, from the fuzz tests' strategies."""
    from hypothesis import HealthCheck, given, seed, settings, strategies as st

    import fuzz_inputs as inputs

    strategy = {
        "static python": inputs.python_texts(), "static hy": inputs.hy_texts(1500),
        "roster csv": inputs.csv_bytes().map(lambda b: b.decode("utf-8", "replace")),
    }.get(reader_name, inputs.lisp_texts())
    drawn: list[str] = []

    @seed(20261124)
    @settings(max_examples=count, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def draw(data):
        drawn.append(data.draw(strategy))

    draw()
    return drawn


if __name__ == "__main__":
    main()
