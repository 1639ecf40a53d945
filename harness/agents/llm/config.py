"""Declaring a language-model agent: `[llm.NAME]` in the course file, or `"llm": {"NAME":
{...}}` in a population or experiment file, and the model the agent spec `llm:NAME` plays
(`declared_config`; harness/agents/specs.py's `llm_spec` makes the spec).

A declaration names an endpoint and how to ask it; never a key: `api_key_env` names the
environment variable that holds one, read when the model is asked, and recorded by name
only. Which variable's value is sent, and so to which endpoint, is the instructor's choice:
only a course file named on the command line (`--config FILE`) may say it, never a
population, experiment or record file, nor a course file found in the current folder
(a file handed to the instructor must not send their secrets anywhere). Everything else (the framing's text included) is recorded with the run, so `resume`
plays the same agent whatever the files say by then.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from harness.agents.agent_files import read_input_file
from harness.core.errors import HarnessError

from .answer_schema import SETTINGS
from .prompts import SHIPPED, check_template, shipped_text

PREFIX = "llm:"
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")
KEYS = ("base_url", "model", "temperature", "seed", "max_tokens", "api_key_env", "framing",
        "chat", "timeout", "retries", "in_flight", "structured")
MAX_TEMPLATE_BYTES = 64 * 1024


@dataclass(frozen=True)
class LlmConfig:
    name: str
    base_url: str
    model: str
    temperature: float = 0.0
    seed: int | None = None           # sent as the request's seed (servers that take one)
    max_tokens: int = 256
    api_key_env: str | None = None    # the NAME of a variable; the key is never recorded
    framing: str = "neutral"          # a shipped framing's name, or the template file given
    framing_text: str = ""            # the template itself (filled in by `declared`)
    chat: bool = False
    timeout: float = 60.0             # seconds per model call (the student limit is another)
    retries: int = 3                  # more tries on 429, 5xx, timeouts and lost connections
    in_flight: int = 4                # requests at once to this endpoint, per process
    structured: str = "auto"          # answers under a JSON schema: auto, a form, off (forms.py)

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> LlmConfig:
        data = json.loads(text)
        # a record made before structured answers asked in prose: resumed, it still does
        data.setdefault("structured", "off")

        if data["structured"] not in SETTINGS:
            raise ValueError("structured")
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})




# declarations from the course file (the command line's `llm:NAME` arguments use them)
_COURSE: dict[str, LlmConfig] = {}


def declare_course(configs: dict[str, LlmConfig]) -> None:
    _COURSE.clear()
    _COURSE.update(configs)


def declared_config(argument: str, declarations: dict[str, LlmConfig] | None = None) \
        -> LlmConfig:
    """The model `llm:NAME` plays, NAME looked up in `declarations` (a population's or
    experiment's own, over the course file's)."""
    wanted = argument[len(PREFIX):]
    known = {**_COURSE, **(declarations or {})}
    config = known.get(wanted)
    if config is None:
        declared = ", ".join(sorted(known)) or "none"
        raise HarnessError(f"{argument}: no language model {wanted!r} is declared (declare "
                           f"it as [llm.{wanted}] in the course file or \"llm\" in a "
                           f"population or experiment file; declared: {declared})")
    return config


def declared(content: dict, base: Path, where: str, keys: bool = False) -> dict[str, LlmConfig]:
    """The `llm` table of a course, population or experiment file, checked (files named
    in it relative to `base`); `keys`: the file may name `api_key_env` (a course file the
    user named with --config)."""
    table = content.get("llm", {})
    if not isinstance(table, dict):
        raise HarnessError(f"{where}: llm must be a table of models by name")
    return {name: _one(name, value, base, f"{where}: llm.{_label(name)}", keys)
            for name, value in table.items()}


def course_declares_key(config: LlmConfig) -> bool:
    """Whether the course file named on the command line declares this model, sending the
    same variable's key to the same endpoint (what a recorded model needs to be resumed
    with its key: a record is a file anyone may have edited)."""
    known = _COURSE.get(config.name)
    return known is not None and known.api_key_env == config.api_key_env and \
        known.base_url == config.base_url


def _label(name) -> str:
    """A declared name as a message may quote it: as written when valid, else its repr."""
    return name if isinstance(name, str) and NAME.fullmatch(name) else repr(name)[:40]


def _one(name, entry, base: Path, where: str, keys: bool) -> LlmConfig:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise HarnessError(f"{where}: a model's name is 1-40 letters, digits, _ . - "
                           "(starting with a letter)")
    if not isinstance(entry, dict):
        raise HarnessError(f"{where}: expected a table with base_url and model")
    unknown = sorted(set(entry) - set(KEYS))
    if unknown:
        raise HarnessError(f"{where}: unknown key {str(unknown[0])[:40]!r} (keys: "
                           f"{', '.join(KEYS)})")
    for key in ("base_url", "model"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise HarnessError(f"{where}: {key} is required, as a string")
    base_url = entry["base_url"].strip()
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", base_url) or not base_url.isprintable():
        raise HarnessError(f"{where}: base_url must be an http:// or https:// address, "
                           f"e.g. http://localhost:11434/v1")
    config = LlmConfig(name, base_url, entry["model"].strip())
    changes: dict = {}
    for key, kind, low, high in (("temperature", float, 0.0, 2.0),
                                 ("seed", int, 0, 2 ** 63 - 1),
                                 ("max_tokens", int, 1, 100_000),
                                 ("timeout", float, 0.001, 3600.0),
                                 ("retries", int, 0, 10),
                                 ("in_flight", int, 1, 256)):
        if key in entry:
            changes[key] = _number(entry[key], kind, low, high, f"{where}: {key}")
    if "chat" in entry:
        if not isinstance(entry["chat"], bool):
            raise HarnessError(f"{where}: chat is true or false")
        changes["chat"] = entry["chat"]
    if "structured" in entry:
        if not isinstance(entry["structured"], str) or entry["structured"] not in SETTINGS:
            raise HarnessError(f"{where}: structured is one of {', '.join(SETTINGS)}")
        changes["structured"] = entry["structured"]
    if "api_key_env" in entry:
        if not keys:
            raise HarnessError(f"{where}: api_key_env: only a course file you name (--config "
                               "FILE) may choose an environment variable whose value is sent "
                               "to an endpoint; declare the model there")
        variable = entry["api_key_env"]
        if not isinstance(variable, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,99}",
                                                             variable):
            raise HarnessError(f"{where}: api_key_env is the NAME of an environment "
                               "variable (e.g. OPENAI_API_KEY), never the key itself")
        changes["api_key_env"] = variable
    framing = entry.get("framing", "neutral")
    if not isinstance(framing, str) or not framing:
        raise HarnessError(f"{where}: framing is a shipped framing's name or a file")
    changes["framing"], changes["framing_text"] = _framing(framing, base, where)
    return replace(config, **changes)


def _number(value, kind, low, high, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            (kind is int and not isinstance(value, int)):
        raise HarnessError(f"{where}: expected a {'whole ' if kind is int else ''}number")
    if not low <= value <= high:
        raise HarnessError(f"{where}: {value} is outside {low:g}..{high:g}")
    return kind(value)


def _framing(framing: str, base: Path, where: str) -> tuple[str, str]:
    if framing in SHIPPED:
        return framing, shipped_text(framing)
    path = Path(framing) if Path(framing).is_absolute() else base / framing

    try:
        data = read_input_file(path, MAX_TEMPLATE_BYTES, "a framing template")
        text = data.decode("utf-8")
    except HarnessError as error:
        raise HarnessError(f"{where}: framing {framing[:80]!r} is not a shipped framing "
                           f"({', '.join(SHIPPED)}) nor a readable file: "
                           f"{' '.join(str(error).split())}") from None
    except UnicodeDecodeError:
        raise HarnessError(f"{where}: {str(path)!r}: a framing template is UTF-8 text") from None
    problem = check_template(text)
    if problem:
        raise HarnessError(f"{where}: {str(path)!r}: {problem}")
    return str(path), text
