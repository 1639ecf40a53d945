"""Validating one submission, and a list of them (in parallel)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..agents import file_spec
from ..handles.opening import Isolation
from .contract import play_contract
from .naming import Roster, check_name
from .problems import Problem
from .static import check_file


@dataclass
class Verdict:
    path: Path
    agent: str | None
    language: str | None
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict:
        return {"path": str(self.path), "agent": self.agent, "language": self.language,
                "ok": self.ok, "problems": [p.as_dict() for p in self.problems],
                "warnings": list(self.warnings)}


def validate_file(path: Path, isolation: Isolation, roster: Roster | None = None) -> Verdict:
    from ..agents import is_agent_file
    from ..pyload import read_source
    from ..errors import LoadError

    if not is_agent_file(path):
        return Verdict(path, None, None, [Problem(
            "no-agent", f"{path.name} is not an agent file (.py, .hy or .lisp)")])
    spec = file_spec(path)
    verdict = Verdict(path, path.stem, spec.language)
    try:
        source = read_source(path)
    except LoadError as error:
        verdict.problems.append(Problem("load-error", str(error)))
        return verdict
    problems, agent = check_file(path, spec.language, source)
    verdict.problems += problems
    verdict.agent = agent or path.stem
    _check_name(verdict, roster)
    if any(p.code == "syntax-error" for p in problems):
        return verdict  # it cannot load; playing would only repeat that
    played, warnings = play_contract(spec, isolation)
    verdict.problems += [p for p in played
                         if not (p.code == "load-error" and _explained(verdict, p))]
    verdict.warnings += warnings
    return verdict


def _explained(verdict: Verdict, problem: Problem) -> bool:
    """A load error that only says what no-agent/file-name-mismatch already said."""
    return ("defines no function" in problem.message
            and any(p.code in ("no-agent", "file-name-mismatch", "several-agents")
                    for p in verdict.problems))


def _check_name(verdict: Verdict, roster: Roster | None) -> None:
    name = verdict.agent
    naming = check_name(name)
    if roster is None:
        verdict.problems += [Problem(code, message) for code, message in naming.problems]
        verdict.warnings += naming.warnings
        return
    if naming.problems and naming.problems[0][0] == "name-format":
        verdict.problems.append(Problem(*naming.problems[0]))
        return
    team = roster.team_for(name)
    if team is not None:
        return
    # the right members in the wrong order?
    reordered = roster.team_with_members(naming.members) if naming.members else None
    if reordered is not None:
        verdict.problems.append(Problem("name-order", f"{name}: the team on the roster is "
                                        f"{reordered.agent_name} (alphabetical order)"))
    else:
        verdict.problems.append(Problem("not-on-roster",
                                        f"{name}: no team on the roster has these members"))


def validate_all(paths: list[Path], isolation: Isolation, roster: Roster | None = None,
                 jobs: int | None = None) -> list[Verdict]:
    """Every submission, in parallel (each plays in processes of its own), then names
    shared by two submissions."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    workers = max(1, jobs or (os.cpu_count() or 1) * 2)
    with ThreadPoolExecutor(max_workers=workers) as executor:
        verdicts = list(executor.map(lambda p: validate_file(p, isolation, roster), paths))
    _duplicates(verdicts)
    return verdicts


def _duplicates(verdicts: list[Verdict]) -> None:
    seen: dict[str, Verdict] = {}
    for verdict in verdicts:
        if not verdict.agent:
            continue
        key = verdict.agent.lower()
        if key in seen:
            other = seen[key]
            for one, two in ((verdict, other), (other, verdict)):
                one.problems.append(Problem("duplicate-name", f"{one.path.name} and "
                                            f"{two.path} both define {verdict.agent}"))
        else:
            seen[key] = verdict
