"""The definitions of a Hy agent file, read through Hy's reader with no reader macro run
(harness/agents/lang/hy_loading.py's static_reader)."""
from __future__ import annotations

from pathlib import Path

from .definitions import Definitions, Function, NotReadHere, Unreadable
from .hy_loading import static_reader, unclosed_form


def hy_definitions(source: str, path: Path) -> Definitions:
    import hy  # heavy (hy): loaded only where used
    from hy.errors import HyError  # heavy (hy): loaded only where used
    from hy.reader import read_many  # heavy (hy): loaded only where used

    found = Definitions()
    reader = static_reader()  # runs no reader macro; names unclosed brackets' lines
    try:
        for form in read_many(source, filename=str(path), reader=reader):
            found.imports += _hy_imports(form, hy)
            function = _hy_function(form, hy)
            if function is not None:
                found.functions.append(function)
    except RecursionError:
        raise NotReadHere("nested too deeply for Hy's reader") from None
    except HyError as error:
        if isinstance(error.__context__, RecursionError):
            raise NotReadHere("nested too deeply for Hy's reader") from error
        unclosed = unclosed_form(reader, error)
        if unclosed:
            raise Unreadable(*unclosed) from error
        raise Unreadable(getattr(error, "lineno", None),
                         " ".join(str(getattr(error, "msg", error)).split())) from error
    return found


def _hy_imports(form, hy) -> list[str]:
    """The modules of a top-level (import a b.c [x] d :as e) or (require m ...), as Python
    names them; a quoted name list, `:as` and its alias are not modules."""
    models = hy.models
    if not (isinstance(form, models.Expression) and form
            and form[0] in (models.Symbol("import"), models.Symbol("require"))):
        return []
    names, after_as = [], False
    for item in form[1:]:
        parts = [item] if isinstance(item, models.Symbol) else list(item[1:]) if (
            isinstance(item, models.Expression) and item and item[0] == models.Symbol(".")
        ) else []   # `a.b` reads as (. a b)
        if parts and not after_as and all(isinstance(part, models.Symbol) for part in parts):
            names.append(".".join(hy.mangle(str(part)) for part in parts))
        after_as = isinstance(item, models.Keyword) and item.name == "as"
    return names


def _hy_function(form, hy) -> Function | None:
    """(defn [decorators] :async name [params] ...) or (setv name (fn [params] ...))."""
    models = hy.models
    if not isinstance(form, models.Expression) or len(form) < 3:
        return None
    head = form[0]
    if head == models.Symbol("defclass") and isinstance(form[1], models.Symbol):
        return _hy_class(form, hy)
    if head == models.Symbol("defn"):
        items = list(form[1:])
        while items and isinstance(items[0], (models.List, models.Keyword)):
            items.pop(0)  # decorators, :async
        params = items[1] if len(items) > 1 else None
    elif head == models.Symbol("setv") and len(form) == 3 and isinstance(
            form[2], models.Expression) and form[2] and form[2][0] == models.Symbol("fn"):
        items = [form[1]]
        params = form[2][1] if len(form[2]) > 1 else None
    elif head == models.Symbol("setv") and len(form) == 3 and isinstance(
            form[1], models.Symbol) and isinstance(form[2], models.Expression):
        # (setv Name (make-agent)) or (setv Name #%(...)): bound to what only running tells
        return Function(hy.mangle(str(form[1])), str(form[1]), form.start_line or 0,
                        two_arguments=False, bound_only=True)
    else:
        return None
    name = items[0] if items else None
    if isinstance(name, models.Expression) and len(name) > 1 and name[0] == models.Symbol(
            "annotate"):
        name = name[1]
    if not isinstance(name, models.Symbol):
        return None
    return Function(hy.mangle(str(name)), str(name), form.start_line or 0,
                    two_arguments=_hy_takes_two(params, models))


def _hy_class(form, hy) -> Function:
    """(defclass Name [bases] ... (defn move [self hist score] ...)): an agent class."""
    models = hy.models
    two = False
    for item in form[2:]:
        method = _hy_function(item, hy) if isinstance(item, models.Expression) and item \
            and item[0] == models.Symbol("defn") else None
        if method is not None and method.name == "move":
            params = _hy_params(item, models)
            two = isinstance(params, models.List) and len(params) > 0 and _hy_takes_two(
                models.List(params[1:]), models)
    return Function(hy.mangle(str(form[1])), str(form[1]), form.start_line or 0,
                    two_arguments=two)


def _hy_params(form, models):
    items = list(form[1:])
    while items and isinstance(items[0], (models.List, models.Keyword)):
        items.pop(0)
    return items[1] if len(items) > 1 else None


def _hy_takes_two(params, models) -> bool:
    if not isinstance(params, models.List):
        return False
    required = optional = 0
    for item in params:
        if isinstance(item, models.Symbol) and str(item) in ("*", "/"):
            continue
        if isinstance(item, models.Expression):  # #* rest or #** keywords
            if item and item[0] == models.Symbol("unpack-iterable"):
                return required <= 2
            continue
        if isinstance(item, models.List):
            optional += 1
        else:
            required += 1
    return required <= 2 <= required + optional
