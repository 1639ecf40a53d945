"""The course file, `pdharness.toml`: what a course fixes once (agents folder, roster,
timeout, memory limit, faults, flips, lengths, payoffs, output files, ...), found in the
current folder or given with `--config FILE`.

Its keys are the commands' own long options, written without the dashes (`timeout`,
`moves-per-turn`, `max-faults`, `grades`), plus `agents` for the AGENT arguments. So the
course file reads the very table the command line is built from (harness/engine/parameters.py,
made into options by harness/cli/commands/options.py, and each command's declarations): the
same names, the same checks (each value is converted by the option's own type), the same
defaults and help. Top-level keys apply to every command
that has that option; a `[tournament]`, `[validate]`, ... table applies to that command only.
A key no command knows is an error, with the nearest name. Options given on the command
line win; the run says which values came from the course file.

Paths in the course file are relative to the course file's folder, wherever the command
runs.

What a run may touch is chosen by the person at the command line, never by a file
(`guard`): no course file may ask for an isolation weaker than the sandbox, and one read
from the current folder (which may be a folder of uploads) may not name a file outside its
own folder, a cluster, a time, memory or bundle size limit above the default, nor more
jobs (games or tournaments in flight) than the machine has cores: those come from a
course file the instructor names with `--config FILE`. Such a key is refused with one line
naming the file and the key.
"""
from __future__ import annotations

import difflib
import functools
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import click
from click.core import ParameterSource

from harness.agents.llm.config import declare_course, declared as declared_models
from harness.agents.population import read_bounded, toml_loads
from harness.core.errors import HarnessError
from harness.core.safe_text import line, line as shown
from harness.engine.parameters import BY_NAME, TABLE

FILE_NAME = "pdharness.toml"
META_KEY = "pdharness.course"     # where the context keeps what was read


@dataclass
class CourseValues:
    path: Path
    values: dict = field(default_factory=dict)       # parameter name -> value given
    keys: dict = field(default_factory=dict)         # parameter name -> key as written
    models: list = field(default_factory=list)       # the [llm.NAME] tables' names


def config_option(command: click.Command) -> click.Command:
    """Give a command `--config FILE` (once), read before its other options."""
    if any(param.name == "config" for param in command.params):
        return command
    command.params.insert(0, click.Option(
        ["--config"], type=click.Path(dir_okay=False), is_eager=True, expose_value=False,
        callback=_load_into_context, metavar="FILE.toml",
        help=f"Course file (default: ./{FILE_NAME} when present); options given here win."))
    command.callback = _saying_sources(command.callback)
    return command


def _saying_sources(callback):
    """The command's own callback, after one line on stderr naming the course file's
    values (so a run never silently depends on a file the user forgot)."""
    @functools.wraps(callback)
    def run(*args, **kwargs):
        line = note()
        if line:
            click.echo(f"pdharness: {shown(line)}", err=True)
        return callback(*args, **kwargs)

    return run


def _load_into_context(ctx: click.Context, _param, value):
    if value is not None and not os.path.lexists(value):
        raise HarnessError(f"--config {line(value)}: no such file")   # a name may hold a newline
    path = Path(value) if value is not None else Path(FILE_NAME)
    if value is None and not os.path.lexists(path):
        declare_course({})   # no course file: no models from an earlier one (one process)
        return None
    course = read(path, ctx.find_root().command, ctx.info_name, named=value is not None)
    ctx.default_map = {**(ctx.default_map or {}), **course.values}
    ctx.meta[META_KEY] = course
    return None


# -- reading -------------------------------------------------------------------------------
def read(path: Path, commands: click.Command, command_name: str | None,
         named: bool = False) -> CourseValues:
    """The values of the course file at `path` that the command `command_name` of the group
    `commands` (the `pdharness` group, passed down: this module is below it) takes, checked;
    `named`: the user gave it with --config (else it was found in the current folder: see
    `guard`)."""
    data = parse(path)

    models = declared_models(data, path.resolve().parent, str(path), keys=named)   # [llm.NAME] tables
    declare_course(models)
    known = known_keys(commands)
    chosen: dict[str, object] = {}
    for key, value in data.items():
        if key == "llm":
            continue
        if isinstance(value, dict):
            if key not in known["commands"]:
                _unknown(path, f"[{key}]", known["commands"], "table")
            for inner, inner_value in value.items():
                _check_known(path, inner, known["keys"], f"[{key}] ")
                if key == command_name:
                    chosen[inner] = inner_value   # the command's table wins over the top
            continue
        _check_known(path, key, known["keys"])
        chosen.setdefault(key, value)
    course = CourseValues(path, models=sorted(models))
    command = _command(commands, command_name)
    by_key = keys_of(command)
    for key, value in chosen.items():
        param = by_key.get(key)
        if param is not None:
            course.values[param.name] = _checked(path, key, param, value)
            course.keys[param.name] = key
            guard(path, key, param, course.values[param.name], named)
    return course


def guard(path: Path, key: str, param: click.Parameter, value, named: bool) -> None:
    """Refuse a key that would make the command reach beyond what its command line asked
    for: a weaker isolation from any course file; from one found in the current folder,
    also files and agents (what it reads and writes), a cluster (where agents go), wider
    limits than the defaults, and more jobs than cores."""
    shown = _toml(list(value) if isinstance(value, tuple) else value)
    if param.name == "isolation" and value != "sandbox":
        raise HarnessError(f"{path}: isolation = {shown}: an isolation weaker than the "
                           "sandbox is chosen on the command line (--isolation "
                           f"{value}), never by a file")
    if named:
        return
    why = None
    if isinstance(param.type, click.Path) or isinstance(param, click.Argument):
        outside = _outside(path, value)
        if outside:
            why = f"a file outside its own folder ({outside})"
    elif param.name == "cluster":
        why = "where agents are sent"
    elif param.name in ("timeout", "memory_limit", "load_timeout", "max_bundle_mib") and \
            param.name in BY_NAME and \
            value is not None and value > BY_NAME[param.name].default:
        why = f"a {key} above the default ({BY_NAME[param.name].default:g})"
    elif param.name == "jobs" and value is not None and value > (os.cpu_count() or 1):
        # games, or whole tournaments of an experiment, at once: each with its processes
        why = f"more {key} than this machine's cores ({os.cpu_count() or 1})"
    if why:
        raise HarnessError(f"{path}: {key} = {shown}: a course file found in the current "
                           f"folder may not choose {why}; if you trust it, name it: "
                           f"--config {path}")


def _outside(path: Path, value) -> str | None:
    """The first of the paths `value` names (after `_relative_to_file`) that is not inside
    the course file's own folder, links resolved (a built-in's name is no path)."""
    folder = os.path.realpath(path.resolve().parent)
    for text in value if isinstance(value, (list, tuple)) else [value]:
        if not isinstance(text, str):
            continue
        if text.startswith("qtable:"):
            text = text[len("qtable:"):]
        elif not (os.path.isabs(text) or os.path.lexists(text)) and "/" not in text:
            continue     # a built-in's name or spec, not a path
        real = os.path.realpath(os.path.join(folder, text))
        if real != folder and not real.startswith(folder.rstrip("/") + "/"):
            return text
    return None


def parse(path: Path) -> dict:
    data = read_bounded(path, 1 << 20, "a course file")
    try:
        return toml_loads(data.decode("utf-8"))
    # ValueError: an integer past CPython's digit limit; RecursionError: arrays nested deep
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise HarnessError(f"{path}: not a valid TOML file: {str(error)[:200]}") from error


def keys_of(command: click.Command) -> dict[str, click.Parameter]:
    """The course-file keys a command takes: its long options without the dashes, and its
    AGENT arguments as `agents`."""
    keys: dict[str, click.Parameter] = {}
    for param in command.params:
        if isinstance(param, click.Argument):
            if param.name == "agents":
                keys["agents"] = param
            continue
        if param.name in ("config", "help"):
            continue
        long = [flag for flag in param.opts if flag.startswith("--")]
        if long:
            keys[_course_key(param.name) or long[0][2:]] = param
    return keys


def _course_key(name: str | None) -> str | None:
    """A declared parameter's own course-file key (`agent-packages`), if it has one."""
    declared = BY_NAME.get(name or "")
    return declared.course_key if declared is not None else None


def _repeated_option(key: str) -> str | None:
    """The option a repeatable parameter's course-file key stands for (`--agent-package`)."""
    for declared in TABLE:
        if declared.multiple and (declared.course_key or declared.option[2:]) == key:
            return declared.option
    return None


def known_keys(group: click.Command) -> dict[str, set]:
    """Every key some listed command of `group` takes, and the command names (for the
    `[command]` tables)."""
    keys: set[str] = set()
    commands = set()
    if isinstance(group, click.Group):
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            if command is not None:
                commands.add(name)
                keys |= set(keys_of(command))
    return {"keys": keys, "commands": commands}


def _command(group: click.Command, name: str | None) -> click.Command:
    """The command NAME of `group` (`group` itself when it is a lone command)."""
    if isinstance(group, click.Group) and name is not None:
        command = group.get_command(click.Context(group), name)
        if command is not None:
            return command
    return group


def _check_known(path: Path, key: str, known: set, where: str = "") -> None:
    if key not in known:
        _unknown(path, f"{where}{key}", known, "key")


def _unknown(path: Path, key: str, known, what: str) -> None:
    close = difflib.get_close_matches(key.strip("[]").replace("_", "-"), sorted(known), n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise HarnessError(f"{path}: unknown {what} {key}{hint} (keys are the commands' long "
                       "options without the dashes, e.g. timeout, moves-per-turn)")


def _checked(path: Path, key: str, param: click.Parameter, value):
    """The value as the option's own type accepts it (paths relative to the course file)."""
    value = _relative_to_file(path, param, value)
    if param.nargs != 1 and not isinstance(value, list):
        raise HarnessError(f"{path}: {key} takes a list (e.g. {key} = "
                           f"{_example(param)}), not {value!r}")
    if isinstance(value, list) and param.nargs == 1 and not param.multiple:
        raise HarnessError(f"{path}: {key} takes one value, not a list")
    if param.multiple and not (isinstance(value, list)
                               and all(isinstance(item, str) for item in value)):
        raise HarnessError(f"{path}: {key} takes a list of quoted values (e.g. {key} = "
                           f'["numpy"]), not {_toml(value)}')
    if isinstance(param, click.Option) and param.is_flag:
        if not isinstance(value, bool):
            raise HarnessError(f"{path}: {key} is true or false, not {_toml(value)}")
        return value
    texts = value if isinstance(value, list) else [value]
    if (isinstance(param.type, click.Path) or isinstance(param, click.Argument)) and not all(
            isinstance(text, str) for text in texts):
        raise HarnessError(f"{path}: {key} = {_toml(value)}: a path is written in quotes")
    try:
        ctx = click.Context(click.Command("course-file"))
        param.type_cast_value(ctx, tuple(value) if isinstance(value, list) else value)
    except click.BadParameter as error:
        raise HarnessError(f"{path}: {key} = {_toml(value)}: {error.message}") from error
    except (TypeError, ValueError, AttributeError, OverflowError,   # a TOML type the option
            RecursionError):                                         # cannot take
        raise HarnessError(f"{path}: {key} = {_toml(value)}: not a value {key} takes") from None
    return tuple(value) if isinstance(value, list) else value


def _relative_to_file(path: Path, param, value):
    folder = path.resolve().parent

    def place(text):
        if not isinstance(text, str) or Path(text).is_absolute():
            return text
        candidate = folder / text
        if isinstance(param, click.Argument) and not candidate.exists():
            return text        # an agent argument may be a built-in's name
        return str(candidate)

    if isinstance(param.type, click.Path) or isinstance(param, click.Argument):
        return [place(v) for v in value] if isinstance(value, list) else place(value)
    return value


def _example(param) -> str:
    default = param.default if isinstance(param.default, (tuple, list)) else None
    return _toml(list(default)) if default else "[...]"


def _toml(value, depth: int = 0) -> str:
    if isinstance(value, (list, tuple)):
        if depth > 3 or len(value) > 10:   # a file's arrays may nest thousands deep
            return "[...]"
        return "[" + ", ".join(_toml(v, depth + 1) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


toml_text = _toml   # a value as a TOML file writes it: the notes on where values came from


# -- saying where values came from -------------------------------------------------------------
def sources(ctx: click.Context | None = None) -> tuple[Path | None, dict, list[str]]:
    """(the course file, {key: value} it set, [keys the command line overrode])."""
    ctx = ctx or click.get_current_context(silent=True)
    course = ctx.meta.get(META_KEY) if ctx else None
    if ctx is None or course is None:
        return None, {}, []
    used, overridden = {}, []
    for name, key in course.keys.items():
        if ctx.get_parameter_source(name) == ParameterSource.DEFAULT_MAP:
            used[key] = course.values[name]
        else:
            overridden.append(key)
    return course.path, used, overridden


def note(ctx: click.Context | None = None) -> str:
    """One line for stderr: which values the course file gave, which the command line won."""
    path, used, overridden = sources(ctx)
    if path is None:
        return ""
    given = ", ".join(f"{key} = {_toml(value)}" for key, value in used.items())
    course = ctx.meta.get(META_KEY) if ctx else click.get_current_context().meta.get(META_KEY)
    if course is not None and course.models:
        given += (", " if given else "") + "models " + ", ".join(
            f"llm:{name}" for name in course.models)
    given = given or "nothing"
    beaten = f"; the command line overrode {', '.join(overridden)}" if overridden else ""
    return f"course file {path}: {given}{beaten}"


def as_options(ctx: click.Context | None = None) -> str:
    """The course file's values written as the options that give them, for a recorded
    command line that reruns the same run without the file."""
    path, used, _ = sources(ctx)
    if path is None or not used:
        return ""
    words = []
    for key, value in used.items():
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        repeated = _repeated_option(key)
        if key == "agents":
            words += [shlex.quote(str(v)) for v in values]
        elif repeated:
            words += [word for v in values for word in (repeated, shlex.quote(str(v)))]
        elif isinstance(value, bool):
            words += [f"--{key}"] if value else []
        else:
            words += [f"--{key}", *(shlex.quote(str(v)) for v in values)]
    return " ".join(words) + f"  # from {shlex.quote(str(path))}"
