"""The original call, `(monitor '(.25 .1) '(10 50) '(#'random #'titfortat ...))`, read as
Lisp data (never evaluated) and turned into the monitor's parameters."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .sexpr import LispSyntaxError, Symbol, dumps_or_repr, read_one, short


class MonitorFormError(ValueError):
    """The form is not a monitor call we can run; the message is one line."""


@dataclass(frozen=True)
class MonitorCall:
    flip: tuple[float, float]
    length: tuple[int, int]
    agents: list[str]


def _is(form, name: str) -> bool:
    return isinstance(form, Symbol) and form.name == name


def _unquote(form):
    """'(...) and (quote ...) give their contents; (list ...) gives its arguments."""
    if isinstance(form, list) and len(form) == 2 and _is(form[0], "QUOTE"):
        return form[1]
    if isinstance(form, list) and form and _is(form[0], "LIST"):
        return form[1:]
    return form


def _numbers(form, what: str, kind, longest: int):
    """Two numbers for FLIPPARAMS (kind float) or GAMELENGTH (kind int, at most LONGEST),
    each within what the command line accepts: a number too large for a float is a problem
    of the form, not an overflow later."""
    values = _unquote(form)
    if not (isinstance(values, list) and len(values) == 2 and all(map(_is_real, values))):
        raise MonitorFormError(f"{what} must be a list of two numbers, like '(.25 .1)")
    if kind is int:
        if not all(v == int(v) and 1 <= v <= longest for v in values):
            raise MonitorFormError(f"{what} must be two whole numbers from 1 to "
                                   f"{longest}, like '(10 50)")
        return tuple(int(v) for v in values)
    if not all(abs(v) <= 1e9 for v in values):
        raise MonitorFormError(f"{what} must be two numbers of a sensible size, like "
                               "'(.25 .1)")
    return tuple(float(v) for v in values)


def _is_real(value) -> bool:
    """An integer, ratio or float as read (a number kept unconverted, or a complex, is not)."""
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


def _agent_name(form) -> str:
    """#'name, 'name, name or "path"."""
    form = _unquote(form)
    if isinstance(form, list) and len(form) == 2 and _is(form[0], "FUNCTION"):
        form = form[1]
    if isinstance(form, Symbol):
        return form.text
    if isinstance(form, str):
        return form
    raise MonitorFormError(f"not an agent: {short(dumps_or_repr(form))} (write #'name)")


def parse_monitor_call(text: str, longest_game: int) -> MonitorCall:
    """The call in TEXT, its gameLength at most LONGEST_GAME turns; else MonitorFormError."""
    try:
        form = read_one(text)
    except LispSyntaxError as error:
        raise MonitorFormError(f"malformed Lisp form: {error}") from error
    if not (isinstance(form, list) and form and _is(form[0], "MONITOR")):
        raise MonitorFormError("expected a call (monitor flipParams gameLength agents)")
    if len(form) != 4:
        raise MonitorFormError(
            f"monitor takes 3 arguments (flipParams gameLength agents), got {len(form) - 1}")
    agents = _unquote(form[3])
    if not isinstance(agents, list) or not agents:
        raise MonitorFormError("agents must be a list, like '(#'random #'titfortat)")
    return MonitorCall(_numbers(form[1], "flipParams", float, longest_game),
                       _numbers(form[2], "gameLength", int, longest_game),
                       [_agent_name(agent) for agent in agents])
