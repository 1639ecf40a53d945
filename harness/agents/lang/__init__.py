"""The languages agents are written in: one module each, one registry (this one).

A language (harness/agents/lang/language.py's interface) owns everything about itself; everything
above treats agents alike and asks the registry. Adding a language is a module that
subclasses `Language` and one line in `_MODULES`. Built-in and callable agents are not
languages: they are kinds of agents (harness/agents/specs.py).
"""
from __future__ import annotations

from . import hy, lisp, python
from .language import Language

_MODULES = (python, hy, lisp)   # the registry: the order names are listed in messages

LANGUAGES: dict[str, Language] = {module.LANGUAGE.name: module.LANGUAGE for module in _MODULES}
BY_SUFFIX: dict[str, Language] = {suffix: language for language in LANGUAGES.values()
                                  for suffix in language.suffixes}
SUFFIXES: tuple[str, ...] = tuple(BY_SUFFIX)
PYTHON = python.LANGUAGE   # what a function handed to the API is, unless another claims it


def listed_suffixes(last: str = "or") -> str:
    """'.py, .hy or .lisp' (LAST "or"), or '.py, .hy, .lisp' (LAST "")."""
    if not last or len(SUFFIXES) < 2:
        return ", ".join(SUFFIXES)
    return f"{', '.join(SUFFIXES[:-1])} {last} {SUFFIXES[-1]}"


def meant_suffix(suffix: str) -> str | None:
    """The suffix a file under SUFFIX (lower case) was meant to have: '.lsp' -> '.lisp'."""
    for language in LANGUAGES.values():
        if suffix in language.near_misses:
            return language.suffixes[0]
    return None


def language_of_function(function) -> Language:
    """The language a function handed to the API was written in (its hist's pairs)."""
    return next((language for language in LANGUAGES.values()
                 if language.defined_function(function)), PYTHON)
