"""`pdharness new LASTNAME... --lang py|hy|lisp`: a correctly named agent to start from
(each language of harness/agents/lang gives its choice, suffix and template)."""
from __future__ import annotations

from pathlib import Path

import click

from harness.agents.lang import LANGUAGES
from harness.core.errors import HarnessError
from harness.core.safe_text import echo  # paths and type names are the user's

BY_CHOICE = {language.new_choice: language for language in LANGUAGES.values()}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("last_names", nargs=-1, required=True, metavar="LASTNAME...")
@click.option("--lang", type=click.Choice(list(BY_CHOICE)), default="py", show_default=True,
              help="The language to write the agent in.")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=".",
              show_default=True, help="Where to write the file.")
def command(last_names, lang, folder):
    """Write a correctly named, commented, runnable agent template (tit for tat) for the
    team whose members' last names are LASTNAME... (in any order: they are sorted).
    Never overwrites a file.

    \b
    pdharness new Levinson Khosmood --lang lisp   # writes KhosmoodLevinson.lisp"""

    from harness.validation.naming import sort_key  # `pdharness` starts light

    name = agent_name(last_names)
    language = BY_CHOICE[lang]
    target = Path(folder) / f"{name}{language.suffixes[0]}"
    if target.exists():
        raise HarnessError(f"{target} already exists; not overwriting it")
    team = ", ".join(sorted(last_names, key=sort_key))
    text = language.template().replace("{name}", name).replace("{team}", team)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "x", encoding="utf-8") as file:   # "x": never overwrite
            file.write(text)
    except FileExistsError:
        raise HarnessError(f"{target} already exists; not overwriting it") from None
    except OSError as error:
        raise HarnessError(f"cannot write {target}: {error.strerror}") from error

    echo(f"wrote {target}\n"
               f"  try it:    pdharness play {target} titfortat\n"
               f"  check it:  pdharness validate {target}")


def agent_name(last_names) -> str:
    """The team's agent name, or a one-line error about the names given."""
    from harness.validation.naming import agent_name_of, name_for  # `pdharness` starts light

    for last_name in last_names:
        written = agent_name_of(last_name)
        if not written or not written.isalpha():
            raise HarnessError(f"{last_name!r}: a last name is written in letters (hyphens, "
                               "apostrophes and spaces are dropped)")
    return name_for(last_names)

