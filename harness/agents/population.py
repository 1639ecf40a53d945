"""Populations: agent *types* and how many copies of each take part.

An experiment file (JSON, or TOML: same shape) lists types, each with a unique id, the
agent it is (a built-in name, `memory:BITS`, `qtable:MODEL.json`, an agent file or a
bundle, paths relative to the file, or `llm:NAME` with NAME declared in the file's `llm`
table or the course file) and a count: `{"types": [{"id": "tft", "agent": "titfortat",
"count": 3}, ...]}`. The copies are named `id#1`, `id#2`, ... in results.
"""
from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from harness.agents.llm.config import declared
from harness.core.errors import HarnessError

from .agent_files import read_input_file
from .builtins import BUILTINS
from .bundles import is_bundle
from .specs import AgentSpec, Kind, axelrod_spec, file_spec, find_builtin, llm_spec, strategy_spec
from .strategy_specs import is_strategy

if TYPE_CHECKING:
    from .specs import AgentSpec

MAX_FILE_BYTES = 1 << 20
MAX_AGENTS = 1000
TYPE_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")


@dataclass(frozen=True)
class AgentType:
    id: str
    agent: str            # as the file gives it
    count: int
    template: AgentSpec   # the one copy's spec, named after the id

    def copies(self) -> list:
        return [replace(self.template, name=copy_name(self.id, k))
                for k in range(1, self.count + 1)]


def copy_name(type_id: str, k: int) -> str:
    return f"{type_id}#{k}"


def type_of(agent_name: str) -> str:
    """`tft#2` -> `tft` (an agent not from a population is a type of its own)."""
    return agent_name.rsplit("#", 1)[0] if "#" in agent_name else agent_name


def read_file(path) -> dict:
    """A JSON or TOML experiment file as a dict, or one clear line saying why not."""
    path = Path(path)
    return parse_file(read_bounded(path, MAX_FILE_BYTES, "an experiment file"), path)


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """A user's input file, at most `limit` bytes (read no further), or one clear line:
    read as agent files are (harness/agents/agent_files.py: no link, FIFO or device)."""
    return read_input_file(path, limit, what)


def toml_loads(text: str) -> dict:
    """TOML text as a dict: tomllib, or on Python 3.10 its backport tomli (setup.cfg)."""
    if sys.version_info >= (3, 11):
        import tomllib  # in the standard library from Python 3.11 on, tomli before
    else:
        import tomli as tomllib  # before Python 3.11: tomli, a dependency there (setup.cfg)
    return tomllib.loads(text)


def parse_file(data: bytes, path: Path) -> dict:
    """An experiment file's bytes (JSON, or TOML by its suffix) as a dict."""
    try:
        text = data.decode("utf-8")
        if path.suffix.lower() == ".toml":
            content = toml_loads(text)
        else:
            content = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        reason = ' '.join(str(error).split())[:200]
        raise HarnessError(f"{path}: not valid {kind}: {reason}") from error
    if not isinstance(content, dict):
        raise HarnessError(f"{path}: expected an object with \"types\" at the top")
    return content


def population_types(content: dict, base: Path, where: str,
                     declarations: dict | None = None) -> list[AgentType]:
    """The file's types; `llm:NAME` agents use the file's own `llm` declarations (or the
    `declarations` given: an experiment's, for a condition's types)."""
    if declarations is None:
        declarations = declared(content, base, where)
    entries = content.get("types")
    if not isinstance(entries, list) or not entries:
        raise HarnessError(f"{where}: \"types\" must be a non-empty list of agent types")
    types: list[AgentType] = []
    seen: dict[str, AgentType] = {}
    for number, entry in enumerate(entries, 1):
        agent_type = _agent_type(entry, base, f"{where}: type {number}", declarations)
        other = seen.get(agent_type.id.lower())
        if other is not None:
            raise HarnessError(f"{where}: two types with the id {agent_type.id!r}")
        seen[agent_type.id.lower()] = agent_type
        types.append(agent_type)
    total = sum(t.count for t in types)
    if total < 2:
        raise HarnessError(f"{where}: a tournament needs at least 2 agents, the types "
                           f"make {total}")
    if total > MAX_AGENTS:
        raise HarnessError(f"{where}: {total} agents; at most {MAX_AGENTS}")
    return types


def _agent_type(entry, base: Path, where: str, declarations: dict) -> AgentType:
    if not isinstance(entry, dict):
        raise HarnessError(f"{where}: expected an object with id, agent and count")
    unknown = sorted(set(entry) - {"id", "agent", "count", "opening"})
    if unknown:
        raise HarnessError(f"{where}: unknown field {unknown[0]!r} (fields: id, agent, "
                           "count, opening)")
    type_id, agent, count = entry.get("id"), entry.get("agent"), entry.get("count", 1)
    if not isinstance(type_id, str) or not TYPE_ID.fullmatch(type_id):
        raise HarnessError(f"{where}: id must be a name of letters, digits, _ . - "
                           f"(starting with a letter, at most 40), not {_shown(type_id)}")
    where = f"{where} ({type_id})"
    if not isinstance(agent, str) or not agent:
        raise HarnessError(f"{where}: agent must be a built-in name, memory:BITS, "
                           f"qtable:MODEL.json, llm:NAME, axelrod:NAME or an agent file, not "
                           f"{_shown(agent)}")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_AGENTS:
        raise HarnessError(f"{where}: count must be a whole number from 1 to {MAX_AGENTS}, "
                           f"not {_shown(count)}")
    opening = entry.get("opening")
    if opening is not None:
        if not agent.startswith("memory:") or not isinstance(opening, str):
            raise HarnessError(f"{where}: opening is for memory:BITS agents, as a string")
        agent = f"{agent}:{opening}"
    try:
        template = _template(agent, type_id, base, declarations)
    except HarnessError as error:
        raise HarnessError(f"{where}: {error}") from error
    return AgentType(type_id, agent, count, template)


def _template(agent: str, type_id: str, base: Path, declarations: dict):
    if is_strategy(agent):
        return strategy_spec(agent, type_id, base)
    if agent.startswith("llm:"):
        return llm_spec(agent, declarations, type_id)
    if agent.startswith("axelrod:"):
        return axelrod_spec(agent, type_id)
    builtin = find_builtin(agent)
    if builtin:
        return AgentSpec(type_id, Kind.BUILTIN.spelling, builtin)
    # lexically normal (../ folded away): a sandbox shows the agent's file at this path
    # but not the folders a ../ would climb out of
    path = Path(os.path.normpath(Path(agent) if Path(agent).is_absolute() else base / agent))
    if not (path.is_file() or is_bundle(path)):   # a bundle's folder, as a tournament takes
        raise HarnessError(f"unknown agent {agent!r}: not a built-in "
                           f"({', '.join(sorted(BUILTINS))}), memory:BITS, qtable:FILE, "
                           f"llm:NAME, an agent file or a bundle (looked for {path})")
    spec = file_spec(path)
    return AgentSpec(type_id, spec.language, spec.source)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def population_specs(path) -> list:
    """`tournament --population FILE`: every copy of every type, as AgentSpecs."""
    path = Path(path)
    types = population_types(read_file(path), path.parent, str(path))
    return [spec for agent_type in types for spec in agent_type.copies()]
