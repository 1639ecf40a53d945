"""Validating submissions: which files, each file's verdict, and what only a list of them
shows (two submissions with one agent name).

Each verdict is built in two steps: reading (the name, what the file defines; cheap, and
done one file at a time, since Hy's reader is not safe to run in threads) and playing (the
contract; processes of its own, so many files play at once).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path

from harness.agents.agent_files import read_agent_file, unusable_path
from harness.agents.builtins import BUILTINS
from harness.agents.bundles import is_bundle
from harness.agents.lang import LANGUAGES, SUFFIXES, listed_suffixes, meant_suffix
from harness.agents.specs import defined_spec, file_spec
from harness.core.errors import HarnessError, LoadError
from harness.core.fault_policy import FaultCode

from .contract import ContractParams, play_contract
from .naming import agent_name_of, check_name as rule, declared_team, plain
from .problems import Problem
from .roster import Roster, Team
from .static import check_file


@dataclass
class Verdict:
    path: Path
    agent: str | None
    language: str | None
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    playable: bool = False   # worth playing: an agent file that reads
    seed: int | None = None  # of the contract games (`validate --seed` replays them)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict:
        return {"path": str(self.path), "agent": self.agent, "language": self.language,
                "ok": self.ok, "problems": [p.as_dict() for p in self.problems],
                "warnings": list(self.warnings), "seed": self.seed}


# -- which files --------------------------------------------------------------------------
def submission_files(arguments, recursive: bool = False) -> list[Path]:
    """Files named on the command line, and the submissions in folders named there (agent
    files, and files meant as agents under a suffix the harness does not load). The same
    file named twice counts once."""
    files: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        if is_bundle(path):   # a folder or zip named after its agent: one submission
            files.append(path)
        elif path.is_dir():
            files += _in_folder(path, recursive)
        elif path.exists() and (path.is_file() or path.is_symlink()
                                or path.suffix in SUFFIXES):
            files.append(path)  # a link, FIFO or device: a load error says it is refused
        else:
            raise HarnessError(unusable_path(argument))
    unique, seen = [], set()
    for path in files:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(path)
    if not unique:
        deeper = not recursive and any(Path(argument).is_dir() and _in_folder(Path(argument), True)
                                       for argument in arguments)
        hint = ("; its subfolders hold some: add --recursive (-r) to look inside them"
                if deeper else "")
        raise HarnessError(f"no agent files ({listed_suffixes('')}) in "
                           f"{', '.join(map(str, arguments))}{hint}")
    return unique


def _in_folder(folder: Path, recursive: bool) -> list[Path]:
    found = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(("_", ".")):
            continue  # __init__.py, editor and system files
        if is_bundle(path):   # its helper modules are no submissions of their own
            found.append(path)
        elif path.is_dir() and not path.is_symlink():  # a linked folder may loop
            if recursive:
                found += _in_folder(path, recursive)
        elif path.suffix in SUFFIXES or _meant_as(path):
            found.append(path)
    return found


def _meant_as(path: Path) -> str | None:
    """The suffix a misnamed agent file should have (KhosmoodLevinson.lsp -> .lisp)."""
    suffixes = [s.lower() for s in path.suffixes]
    if path.suffix in SUFFIXES:
        return None
    if suffixes and meant_suffix(suffixes[-1]):
        return meant_suffix(suffixes[-1])
    if len(suffixes) > 1 and suffixes[-1] == ".txt" and suffixes[-2] in SUFFIXES:
        return suffixes[-2]
    if suffixes and suffixes[-1] in SUFFIXES:   # .PY, .Lisp
        return suffixes[-1]
    return None


# -- one file -----------------------------------------------------------------------------
def read_submission(path: Path, roster=None) -> Verdict:
    """Everything that can be found without running the file."""
    bundled = is_bundle(path)
    if path.suffix not in SUFFIXES and not bundled:
        return _not_an_agent_file(path, roster)
    spec = file_spec(path)
    verdict = Verdict(path, spec.name, spec.language)
    try:
        # a bundle's agent file is read as its snapshot holds it (refused bundles stop here)
        read = Path(spec.agent_file)
        source = read_text(read, spec.language, verdict.warnings)
    except LoadError as error:
        verdict.problems.append(Problem(FaultCode.LOAD_ERROR, str(error)))
        return verdict
    problems, agent = check_file(read, spec.language, source, verdict.warnings)
    if bundled:   # named as given, not as its private snapshot
        shown = spec.bundle().shown
        problems = [Problem(p.code, shown(p.message)) for p in problems]
        verdict.warnings[:] = [shown(warning) for warning in verdict.warnings]
    verdict.problems += problems
    verdict.agent = agent or spec.name
    check_name(verdict, roster, declared_team(source))
    verdict.playable = not any(p.code == "syntax-error" for p in problems)
    return verdict


def read_text(path: Path, language: str, warnings: list[str]) -> str:
    """The file's text, read as the tournament reads agent files (a regular file of at most
    1 MiB: a link, a FIFO or a device is a load error, never waited on). A language whose
    loader requires UTF-8 refuses other bytes; one whose runtime reads a file as UTF-8
    whatever it holds (Language.utf8_only False: Lisp) reads it the same way, with a
    warning, and playing it shows whether its runtime loads it."""
    data = read_agent_file(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        unit = LANGUAGES[language]
        if unit.utf8_only:
            raise LoadError(
                f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error
        line = data.count(b"\n", 0, error.start) + 1
        warnings.append(f"{path.name} is not UTF-8 (byte 0x{data[error.start]:02X} on line "
                        f"{line}); {unit.runtime_name} reads it as UTF-8 all the same, "
                        f"and playing it shows whether {unit.runtime_name} loads it: "
                        "save it as UTF-8")
        return data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):  # a byte-order mark, as some Windows editors save UTF-8
        if language == "python":
            return text[1:]  # Python's own encoding mark: the interpreter runs the file
        runtime = LANGUAGES[language].runtime_name
        warnings.append(f"{path.name} starts with a byte-order mark (U+FEFF), which "
                        f"{runtime} reads as a character of the first form: save the file "
                        "as UTF-8 without BOM")
    return text


def _not_an_agent_file(path: Path, roster) -> Verdict:
    stem = path.name.split(".")[0]
    meant = _meant_as(path)
    advice = (f"rename it {stem}{meant}" if meant
              else f"an agent is a {listed_suffixes()} file")
    verdict = Verdict(path, stem, None, [Problem(
        "file-name-mismatch", f"{path.name}: the harness loads only files ending in "
        f"{listed_suffixes()}; {advice}")])
    if stem:
        check_name(verdict, roster)
    return verdict


def play_submission(verdict: Verdict, isolation, params) -> None:
    """Add what playing the file shows to its verdict: a file not named after the one
    function it defines (`KhosmoodLevinson (1).py`, as an LMS renames uploads) is played by
    that function, so its other checks mean what they say."""
    played, warnings = play_contract(defined_spec(verdict.path, verdict.agent), isolation,
                                     params)
    verdict.problems += [p for p in played if not _already_said(verdict, p)]
    verdict.warnings += warnings


def _already_said(verdict: Verdict, problem: Problem) -> bool:
    """A load error that only repeats what no-agent/file-name-mismatch already said."""
    return (problem.code == FaultCode.LOAD_ERROR and "defines no function" in problem.message
            and any(p.code in ("no-agent", "file-name-mismatch", "several-agents")
                    for p in verdict.problems))


# -- the name -------------------------------------------------------------------------------
def check_name(verdict: Verdict, roster=None, declared: list[str] | None = None) -> None:
    """The naming rule, against the roster when there is one, else against the team the
    file declares (`Team: ...`), else by the capitals alone."""
    name = verdict.agent
    assert name is not None  # both callers name the agent (by the file name at least)
    naming = rule(name, _roster_spelling(roster, name))
    if naming.problems and naming.problems[0][0] == "name-format":
        verdict.problems.append(Problem(*naming.problems[0]))
        return
    if roster is not None:
        _against_roster(verdict, name, roster)
        return
    if declared and _against_declared(verdict, name, declared):
        return
    verdict.problems += [Problem(code, message) for code, message in naming.problems]
    verdict.warnings += naming.warnings


def _roster_spelling(roster, name: str) -> str | None:
    """How the roster spells the team NAME is a case or accent variant (or a near miss)
    of: `brownchen` is BrownChen there, not the capitals' guess Brownchen."""
    if roster is None:
        return None
    team = roster.team_for(name) or roster.closest(name)
    return team.agent_name if team is not None else None


def _against_declared(verdict: Verdict, name: str, declared: list[str]) -> bool:
    """Whether the file's own `Team:` line settled the name (a problem or nothing)."""
    team = Team(tuple(declared))
    if Roster([team]).team_for(name) is not None:
        return True
    if _same_team_other_order(Roster([team]), name) is not None:
        verdict.problems.append(Problem(
            "name-order", f"{name}: the file's team ({', '.join(declared)}) in "
            f"alphabetical order is {team.agent_name}"))
        return True
    verdict.warnings.append(f"the file names its team {', '.join(declared)}, which does not "
                            f"spell {name}; the name was checked by its capitals")
    return False


def _against_roster(verdict: Verdict, name: str, roster) -> None:
    if roster.team_for(name) is not None:
        return  # the roster settles the split and the order
    reordered = _same_team_other_order(roster, name)
    if reordered is not None:
        verdict.problems.append(Problem(
            "name-order", f"{name}: on the roster this team is {reordered.agent_name} "
            f"({', '.join(reordered.members)}), its last names in alphabetical order"))
        return
    close = roster.closest(name)
    guess = (f"; did you mean {close.agent_name} ({', '.join(close.members)})?"
             if close else "")
    verdict.problems.append(Problem(
        "not-on-roster", f"{name}: no team on the roster {roster.source} has these "
        f"members{guess}"))


def _same_team_other_order(roster, name: str):
    wanted = plain(name)
    for team in roster.teams:
        if len(team.members) > 6:
            continue
        names = [plain(agent_name_of(m)) for m in team.members]
        if sorted(wanted) == sorted("".join(names)) and any(
                "".join(order) == wanted for order in permutations(names)):
            return team
    return None


# -- a list of files ------------------------------------------------------------------------
def validate_all(paths: list[Path], isolation, roster=None, jobs: int | None = None,
                 params=None) -> list[Verdict]:
    """Every submission: read one at a time, played in parallel (each in processes of its
    own), then the names two submissions share."""
    from concurrent.futures import ThreadPoolExecutor  # heavy (concurrent): loaded only where used

    isolation.environment()   # a declared agent package not installed: one line, first
    params = (params or ContractParams()).seeded()
    verdicts = [read_submission(path, roster) for path in paths]
    for verdict in verdicts:
        verdict.seed = params.seed
    to_play = [v for v in verdicts if v.playable]
    workers = default_jobs() if jobs is None else jobs
    if isolation.mode == "none":
        workers = 1  # agents run inside this process: one at a time
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(to_play) or 1))) as pool:
        list(pool.map(lambda verdict: play_submission(verdict, isolation, params), to_play))
    mark_duplicates(verdicts)
    return verdicts


def default_jobs() -> int:
    """Games waiting on agents' processes, most of the time: more at once than cores."""
    return 4 * (os.cpu_count() or 1)


BUILTIN_NAME_FIX = ("A name shared with a built-in agent (pavlov, random, ...) cannot play "
                    "alongside it: ask the instructor.")


def mark_duplicates(verdicts: list[Verdict]) -> None:
    """Two submissions with one agent name, or one named like a built-in agent: either way
    a tournament could not tell them apart."""
    by_name: dict[str, list[Verdict]] = {}
    for verdict in verdicts:
        if verdict.agent:
            by_name.setdefault(plain(verdict.agent), []).append(verdict)
        if verdict.agent and verdict.agent.lower() in BUILTINS:
            verdict.problems.append(Problem(
                "duplicate-name", f"{verdict.agent} is also the name of a built-in agent "
                f"({verdict.agent.lower()}); a tournament could not tell the two apart",
                fix=BUILTIN_NAME_FIX))
    for same in by_name.values():
        if len(same) < 2:
            continue
        for verdict in same:   # this file first, each path as given (folders included)
            paths = [str(verdict.path)] + [str(v.path) for v in same if v is not verdict]
            listed = ", ".join(paths[:-1]) + " and " + paths[-1]
            verdict.problems.append(Problem(
                "duplicate-name", f"{listed} {'both' if len(paths) == 2 else 'all'} define "
                f"the agent {verdict.agent}"))
