"""`pdharness new LASTNAME... --lang py|hy|lisp`"""
from __future__ import annotations

import click

SUFFIXES = {"py": ".py", "hy": ".hy", "lisp": ".lisp"}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("last_names", nargs=-1, required=True)
@click.option("--lang", type=click.Choice(sorted(SUFFIXES)), default="py", show_default=True)
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=".",
              show_default=True, help="Where to write the file.")
def command(last_names, lang, folder):
    """Write a correctly named, commented, runnable agent template (tit for tat) for the
    team whose members' last names are LASTNAME... (any order: they are sorted)."""
    from importlib import resources
    from pathlib import Path

    from ..errors import HarnessError
    from ..validation.naming import Team

    name = Team(tuple(last_names)).agent_name
    if not name.isidentifier():
        raise HarnessError(f"{' '.join(last_names)}: gives {name!r}, which is not a name a "
                           "program can use; write the last names in letters")
    target = Path(folder) / f"{name}{SUFFIXES[lang]}"
    if target.exists():
        raise HarnessError(f"{target} already exists; not overwriting it")
    template = resources.files("harness").joinpath("templates", f"agent.{lang}.txt")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(template.read_text(encoding="utf-8").replace("{name}", name),
                      encoding="utf-8")
    click.echo(f"wrote {target}: try `pdharness play {target} titfortat`, then "
               f"`pdharness validate {target}`")
