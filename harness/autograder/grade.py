"""One student upload, graded inside Gradescope's container: `validate`'s checks (the name,
the file, the contract played in the sandbox) as Gradescope tests with points, a few
practice games against built-ins, and `validate`'s hints, written as results.json
(Gradescope's autograder specification: score, execution_time, tests[] with name, score,
max_score, status, output and visibility; visibility, stdout_visibility for
run_autograder's own output; a leaderboard of the practice score).

Where bubblewrap cannot run in the container, agents run as plain processes with the same
resource limits (as the tournament does) and the output says so.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from harness.agents.bundles import folder_as_bundle, is_bundle, snapshots_root, use_max_mib
from harness.agents.lang import BY_SUFFIX, SUFFIXES, listed_suffixes
from harness.agents.specs import defined_spec
from harness.core import seeds
from harness.core.counts import counted
from harness.core.errors import HarnessError, LoadError
from harness.core.fault_policy import FAULT_POLICY, GradeCheck
from harness.core.rules import GameParams
from harness.core.safe_text import line
from harness.engine import parameters
from harness.engine.parameters import AGENT_RUN, BY_NAME
from harness.validation.contract import against_builtins

from ..validation.contract import ContractParams
from ..validation.roster import Roster
from ..validation.static import check_file
from ..validation.submission import read_text, submission_files, validate_all

SETTINGS_FILE = "pdharness-autograder.json"   # the instructor's settings, written by bundle.py
ROOT_VARIABLE = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
# what an upload is checked under: every parameter of the tournament's that shapes an
# agent's run (parameters.AGENT_RUN), as `validate` applies them
TOURNAMENT_SETTINGS = AGENT_RUN
PRACTICE = ("titfortat", "defect", "cooperate", "random", "grudger", "pavlov")
PRACTICE_SEED = 20261124
NOT_CHECKED = "Not checked: {} failed first."
# Gradescope's visibility values: "hidden" until published or "after_due_date" keep the
# results from the student until then (the score too, with the top-level visibility)
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
LEADERBOARD_NAME = "Practice score vs built-ins"


def defaults() -> dict:
    """What a bundle's settings file may leave out: the tournament's parameters at their
    declared defaults, 10 points, no roster, 30 practice turns."""
    return {"points": 10.0, **{name: _plain(BY_NAME[name].default) for name in TOURNAMENT_SETTINGS},
            "roster": None, "practice_turns": 30, "visibility": "visible",
            "leaderboard": True}


def _plain(value):
    """A default as the settings file (JSON) holds it: a tuple as a list."""
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class Check:
    name: str
    weight: int               # share of the points
    codes: frozenset          # problem codes of validate that fail it
    needs: str | None = None  # the check that must pass before this one means anything


ONE_FILE = f"One agent file ({listed_suffixes()})"
CHECKS = (
    Check(ONE_FILE, 1, frozenset()),
    Check("Name: spells the team, matches the file", 3, frozenset({
        "name-format", "name-order", "file-name-mismatch", "not-on-roster",
        "duplicate-name"}), needs=ONE_FILE),
    Check("Loads: one agent function, helpers prefixed", 3, frozenset({
        "no-agent", "several-agents", "helper-not-prefixed", "syntax-error",
        *FAULT_POLICY.codes_failing(GradeCheck.LOADS)}), needs=ONE_FILE),
    # the fault policy says which of validate's fault codes fail which check
    Check("Plays: legal answers, in time, no errors", 3,
          FAULT_POLICY.codes_failing(GradeCheck.PLAYS),
          needs="Loads: one agent function, helpers prefixed"),
)


STOPPED = {"score": 0, "output": "The autograder stopped before it finished checking this "
           "upload (its process ended early). Please tell the instructor.",
           "stdout_visibility": "hidden", "tests": []}


def main() -> int:
    """Grade the upload under $AUTOGRADER_ROOT and write results/results.json. Whatever
    happens, a results.json is written (Gradescope shows nothing without one); what went
    wrong goes to stdout, which only the instructor sees.

    The verdict is the monitor's alone: before anything runs, results.json says the run
    stopped (so a monitor that dies leaves a failure, and run_autograder writes one again
    over anything else once it sees the monitor die); the grade replaces it only after
    every agent process is gone (handles closed), written whole in a folder of the
    monitor's own and moved into place, over whatever an agent may have put there."""
    started = time.monotonic()
    root = Path(os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT)
    target = root / "results" / "results.json"
    write_results(target, dict(STOPPED, visibility=_visibility_of(root)))
    try:
        results = grade(root)
    except Exception as error:  # noqa: BLE001 - the student must still get an answer
        traceback.print_exc(file=sys.stdout)
        results = {"score": 0, "output": f"The autograder could not check this upload "
                   f"({type(error).__name__}). Please tell the instructor.",
                   "stdout_visibility": "hidden", "visibility": _visibility_of(root),
                   "tests": []}
    results["execution_time"] = math.ceil(time.monotonic() - started)  # whole seconds
    write_results(target, results)

    print(f"score {results['score']:g}; results written to {line(target)}")
    return 0


def _visibility_of(root: Path) -> str:
    """The instructor's visibility, even when grading failed: a failure must not show a
    student what the instructor keeps hidden until the due date."""
    try:
        chosen = settings_of(root)["visibility"]
    except Exception:  # noqa: BLE001 - unreadable settings: the most careful choice
        return "after_published"
    return chosen if chosen in VISIBILITIES else "after_published"


def write_results(target: Path, results: dict) -> None:
    """results.json written whole or not at all: into a fresh folder only this process may
    write, then renamed over the target (a rename replaces a file an agent planted, and
    nobody ever reads half a verdict)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix=".verdict-", dir=target.parent))
    try:
        scratch = private / "results.json"
        scratch.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n",
                           encoding="utf-8")
        scratch.chmod(0o644)
        os.replace(scratch, target)
    finally:
        shutil.rmtree(private, ignore_errors=True)


def settings_of(root: Path) -> dict:
    path = root / "source" / SETTINGS_FILE
    settings = defaults()
    if path.is_file():
        settings.update(json.loads(path.read_text(encoding="utf-8")))
    return settings


def grade(root: Path) -> dict:
    from harness.isolation import sandbox  # heavy (ctypes): loaded only where used

    settings = settings_of(root)
    chosen = parameters.settings({name: settings[name] for name in TOURNAMENT_SETTINGS})
    isolation = chosen.isolation
    notes = [f"Checked by pdharness {settings.get('harness_version', '')}".rstrip() + "."]
    if isolation.mode == "sandbox" and sandbox.support().flavor is None:
        notes.append(f"Bubblewrap cannot run in this container ({sandbox.support().reason}): "
                     "your agent ran as a plain process with the resource limits only.")

    use_max_mib(settings["max_bundle_mib"])   # an upload of several files is a bundle
    files, missing = submitted_files(root / "submission")
    roster = (Roster.read(root / "source" / settings["roster"]) if settings["roster"]
              else None)
    verdicts = validate_all(files, isolation, roster, 1, ContractParams.of(chosen))
    visibility = settings["visibility"]
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility {visibility!r} is none of {', '.join(VISIBILITIES)}")
    tests = checks(verdicts, missing, settings["points"], visibility)
    warnings = [line(f"{v.path.name}: {w}") for v in verdicts for w in v.warnings]
    if warnings:
        notes.append("Warnings (no points lost):\n" + "\n".join(f"  {w}" for w in warnings))
    results = {"score": 0.0, "output": "\n".join(notes), "output_format": "text",
               "test_output_format": "text", "stdout_visibility": "hidden",
               "visibility": visibility, "tests": tests}
    if tests[-1]["status"] == "passed" and len(verdicts) == 1:
        practice, total = practice_games(verdicts[0], isolation, settings)
        tests.append(dict(practice, visibility=visibility))
        if settings["leaderboard"]:
            results["leaderboard"] = [{"name": LEADERBOARD_NAME, "value": total,
                                       "order": "desc"}]
    results["score"] = round(sum(t["score"] for t in tests), 2)
    return without_own_paths(results, root)


def without_own_paths(results: dict, root: Path) -> dict:
    """What the student reads names their own files as they uploaded them, never the
    autograder's folders (messages quote files by their full path, the harness's own
    code by where it is installed)."""
    upload, source = f"{root / 'submission'}/", f"{root / 'source'}/"

    snapshots = re.compile(re.escape(snapshots_root()) + r"/[^/\s]+/[^/\s]+/")

    def clean(value):
        if isinstance(value, str):   # an upload played as a bundle: by its agent's name
            value = snapshots.sub("", value)
            return value.replace(upload, "").replace(source, "").replace(str(root), ".")
        if isinstance(value, list):
            return [clean(item) for item in value]
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        return value

    return clean(results)


def submitted_files(folder: Path) -> tuple[list[Path], str]:
    """The upload's agent files (in subfolders too: an uploaded zip may hold a folder), or
    why there are none."""
    try:
        bundle = upload_bundle(folder)
    except LoadError as error:
        return [], f"The upload cannot be played as one agent with its files: {error}"
    try:
        if bundle is not None:
            return [bundle], ""
        return submission_files([str(folder)], recursive=True), ""
    except HarnessError:
        uploaded = sorted(line(p.relative_to(folder).as_posix()) for p in folder.rglob("*")
                          if p.is_file()) if folder.is_dir() else []
        return [], ("No agent file in the upload (uploaded: "
                    f"{', '.join(uploaded) or 'nothing'}). Upload one file named after your "
                    f"team, ending in {listed_suffixes()}, e.g. KhosmoodLevinson.py.")


def upload_bundle(folder: Path) -> Path | None:
    """An upload of several files (the agent's file with its data and helper modules,
    uploaded one by one or as a zip Gradescope unpacks) is the bundle of its agent
    (harness/agents/bundles.py): the one agent file at its top, or the one there that
    defines a function named after itself. Its snapshot, a folder named after the agent;
    None for an upload of one file, or one that is a bundle folder itself (found as it is),
    or where no agent file stands out. LoadError if the bundle is refused."""
    if not folder.is_dir() or folder.is_symlink():
        return None
    top = [path for path in sorted(folder.iterdir()) if not path.name.startswith(("_", "."))]
    if len(top) < 2 or any(is_bundle(path) for path in top):
        return None
    agents = [path for path in top if path.suffix in SUFFIXES and path.is_file()
              and not path.is_symlink()]
    chosen = agents if len(agents) == 1 else [path for path in agents if _defines_itself(path)]
    if len(chosen) != 1:
        return None
    return Path(folder_as_bundle(folder, chosen[0].stem).folder)


def _defines_itself(path: Path) -> bool:
    """Whether the agent file defines a function named after itself (read, never run)."""
    language = BY_SUFFIX[path.suffix].name
    try:
        _, agent = check_file(path, language, read_text(path, language, []))
    except LoadError:
        return False
    return agent == path.stem


def checks(verdicts, missing: str, points: float, visibility: str = "visible") -> list[dict]:
    """One Gradescope test per check, in order; a check whose prerequisite failed fails
    too, saying so."""
    total = sum(check.weight for check in CHECKS)
    passed: dict[str, bool] = {}
    tests = []
    for number, check in enumerate(CHECKS, 1):
        if check.codes:
            lines = _problem_lines(verdicts, check.codes)
        else:
            lines = [missing] if missing else _one_file_lines(verdicts)
        ok = not lines
        if ok and check.needs and not passed[check.needs]:
            ok, lines = False, [NOT_CHECKED.format(f"'{check.needs}'")]
        passed[check.name] = ok
        max_score = round(points * check.weight / total, 2)
        tests.append({"name": check.name, "number": str(number),
                      "score": max_score if ok else 0, "max_score": max_score,
                      "status": "passed" if ok else "failed",
                      "output": "\n".join(lines) if lines else "Passed.",
                      "visibility": visibility})
    return tests


def _one_file_lines(verdicts) -> list[str]:
    agents = [v for v in verdicts if v.language]
    if len(agents) == 1:
        return []
    return [f"The upload holds {len(agents)} agent files "
            f"({', '.join(line(v.path.name) for v in agents)}): upload exactly one, the "
            "team's."]


def _problem_lines(verdicts, codes) -> list[str]:
    lines = []
    for verdict in verdicts:
        for problem in verdict.problems:
            if problem.code in codes:
                lines.append(f"{line(verdict.path.name)}: {problem.code}: "
                             f"{line(problem.message)}")
                hint = problem.hint(verdict.language)
                if hint:
                    lines.append(f"  fix: {hint}")
    return lines


def practice_games(verdict, isolation, settings) -> tuple[dict, int]:
    """A game against each of a few built-ins with the tournament's default noise, scores
    only: what the agent does, not a grade (by the function the file defines, as the
    checks played it). (The test, the agent's total score.)"""
    # heavy (concurrent, ctypes, email): loaded only where used
    from harness.isolation.handles.opening import open_handle

    spec = defined_spec(verdict.path, verdict.agent)
    params = GameParams(moves_per_turn=settings["moves_per_turn"])
    turns = settings["practice_turns"]
    lines = [f"{counted(turns, 'turn')} per game, flip chance {params.flip.start:g} decaying "
             f"{params.flip.decay:g}; these scores are not graded."]
    try:
        agent = open_handle(spec, isolation)
    except HarnessError as error:   # it loaded for the checks; say so if not here
        lines.append(f"  could not play: {line(str(error))}")
        return _practice(lines), 0
    total = 0
    try:
        for name, game, side in against_builtins(
                agent, [(builtin, turns) for builtin in PRACTICE], params,
                lambda number, a, b: seeds.game_seed(PRACTICE_SEED, 1, a, b)):
            mine, theirs = game.score if side == "a" else reversed(game.score)
            total += mine
            lines.append(f"  vs {name:<10} {mine:>4} : {theirs:<4}")
    finally:
        agent.close()
    return _practice(lines), total


def _practice(lines: list[str]) -> dict:
    return {"name": "Practice games against built-in agents (not graded)",
            "number": str(len(CHECKS) + 1), "score": 0, "max_score": 0,
            "status": "passed", "output": "\n".join(lines), "visibility": "visible"}
