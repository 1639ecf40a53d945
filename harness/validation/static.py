"""What a submission defines, read without running it: Python through `ast`, Hy through
Hy's reader, Common Lisp through lisp_bridge's reader (never line matching, so comments,
strings and nested forms cannot fool it).

From what a file defines follow `no-agent`, `several-agents`, `file-name-mismatch` and, for
Common Lisp, `helper-not-prefixed`; a file that cannot be read is a `syntax-error`.

Reading is total and bounded: no code of the file's (or of a library it names: no Hy reader
macro, no `#.`) runs, a file larger than its language's STATIC_READ_LIMIT is not read, and
a file that does not fit the reader's limits (Python's own recursion limit while parsing)
is not judged here: a warning says so and the contract played decides, as the tournament's
own loading would.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from .problems import Problem

# Largest file read statically, per language: Hy's reader takes about 0.1 s per KiB
STATIC_READ_LIMIT = {"python": 1 << 20, "lisp": 1 << 20, "hy": 64 << 10}

# Top-level Lisp forms that name something global, besides defun and define-...
LISP_DEFINERS = frozenset({
    "DEFUN", "DEFMACRO", "DEFVAR", "DEFPARAMETER", "DEFCONSTANT", "DEFSTRUCT", "DEFCLASS",
    "DEFGENERIC", "DEFMETHOD", "DEFTYPE", "DEFSETF", "DEFPACKAGE"})
# Forms whose body still runs at top level: a defun inside them is as global as any other
LISP_BODIES_SKIPPED = frozenset({"QUOTE", "FUNCTION", "QUASIQUOTE"})
# Standard generic functions: a method on one of them, specialized on a class of the
# agent's own, names nothing new and clashes with no one
STANDARD_GENERICS = frozenset({
    "PRINT-OBJECT", "INITIALIZE-INSTANCE", "SHARED-INITIALIZE", "REINITIALIZE-INSTANCE",
    "MAKE-INSTANCE", "ALLOCATE-INSTANCE", "CHANGE-CLASS", "DESCRIBE-OBJECT",
    "MAKE-LOAD-FORM", "SLOT-MISSING", "SLOT-UNBOUND", "NO-APPLICABLE-METHOD",
    "NO-NEXT-METHOD", "UPDATE-INSTANCE-FOR-DIFFERENT-CLASS",
    "UPDATE-INSTANCE-FOR-REDEFINED-CLASS"})


@dataclass(frozen=True)
class Function:
    name: str          # as the language looks it up (Hy names mangled)
    written: str       # as the file writes it
    line: int
    nested: bool = False     # inside another top-level form (Lisp)
    two_arguments: bool = True   # may be called as (name hist score)
    bound_only: bool = False     # a name bound to a value that may or may not be a function

    def where(self) -> str:
        return f"inside the form at line {self.line}" if self.nested else f"line {self.line}"


@dataclass
class Definitions:
    functions: list[Function] = field(default_factory=list)
    others: list[tuple[str, str, Function]] = field(default_factory=list)  # (kind, bare name)
    notes: list[str] = field(default_factory=list)   # warnings about the reading itself


class Unreadable(Exception):
    """Not the language's syntax: the file would not load either."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line, self.message = line, message


class NotReadHere(Exception):
    """Beyond what a static read takes on (too large, nested past the parser's recursion
    limit): nothing is concluded from reading; playing the file decides."""


# -- Python ---------------------------------------------------------------------------------
def python_definitions(source: str, path: Path) -> Definitions:
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as error:
        raise Unreadable(error.lineno, error.msg) from error
    except ValueError as error:  # null bytes
        raise Unreadable(None, str(error)) from error
    except (RecursionError, MemoryError):  # CPython's compile stops where its parse does
        raise NotReadHere("nested too deeply for Python's parser") from None
    found = Definitions()
    for node in _module_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.functions.append(Function(node.name, node.name, node.lineno,
                                            two_arguments=_takes_two(node.args)))
        elif isinstance(node, ast.ClassDef):  # an agent class: move(self, hist, score)
            moves = [item for item in node.body if isinstance(item, ast.FunctionDef)
                     and item.name == "move"]
            found.functions.append(Function(node.name, node.name, node.lineno, two_arguments=(
                bool(moves) and _method_takes_two(moves[0].args))))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            # Name = lambda hist, score: ..., or Name = make_agent(): a binding the loader
            # accepts if it is callable (which only running it tells)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            lambda_ = isinstance(value, ast.Lambda)
            for target in targets:
                if isinstance(target, ast.Name):
                    found.functions.append(Function(
                        target.id, target.id, node.lineno, bound_only=not lambda_,
                        two_arguments=(isinstance(value, ast.Lambda) and _takes_two(value.args))))
    return found


def _module_level(body):
    """Statements run when the module loads, including those under if/try/with."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                yield from _module_level(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _module_level(handler.body)


def _method_takes_two(arguments: ast.arguments) -> bool:
    """move(self, hist, score): two arguments after self."""
    positional = arguments.posonlyargs + arguments.args
    if not positional:
        return arguments.vararg is not None
    return _takes_two(ast.arguments(posonlyargs=[], args=positional[1:],
                                    vararg=arguments.vararg, kwonlyargs=[], kw_defaults=[],
                                    defaults=arguments.defaults[-(len(positional) - 1):]
                                    if len(positional) > 1 else []))


def _takes_two(arguments: ast.arguments) -> bool:
    positional = len(arguments.posonlyargs) + len(arguments.args)
    required = positional - len(arguments.defaults)
    return required <= 2 and (positional >= 2 or arguments.vararg is not None)


# -- Hy -------------------------------------------------------------------------------------
def hy_definitions(source: str, path: Path) -> Definitions:
    import hy
    from hy.errors import HyError
    from hy.reader import read_many

    from lisp_bridge.hy_loader import static_reader, unclosed_form

    found = Definitions()
    reader = static_reader()  # runs no reader macro; names unclosed brackets' lines
    try:
        for form in read_many(source, filename=str(path), reader=reader):
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


# -- Common Lisp ----------------------------------------------------------------------------
def lisp_definitions(source: str, path: Path) -> Definitions:
    from lisp_bridge.sbcl_features import sbcl_features
    from lisp_bridge.sexpr import LispSyntaxError, read_all_with_lines

    features = sbcl_features()
    try:
        located = read_all_with_lines(source, features.names)
    except LispSyntaxError as error:
        raise Unreadable(error.line, error.message) from error
    found = Definitions()
    if not features.exact and ("#+" in source or "#-" in source):
        found.notes.append("SBCL is not installed here, so #+/#- were read with the features "
                           "of a typical SBCL on Linux: what SBCL will load may differ")
    for item in located:
        for kind, name, written, params, nested in _lisp_definitions_in(item.form, False):
            function = Function(name, written, item.line, nested, _lisp_takes_two(params))
            if kind == "defun":
                found.functions.append(function)
            else:
                found.others.append((kind, name, function))
    return found


def _lisp_definitions_in(form, nested):
    """(kind, NAME, written name, lambda list, nested) for every definition in FORM."""
    from lisp_bridge.sexpr import Symbol

    if not (isinstance(form, list) and form):
        return
    head = form[0]
    if isinstance(head, Symbol) and head.name in LISP_BODIES_SKIPPED:
        return  # data, or a template: defines nothing by being read
    if isinstance(head, Symbol) and len(form) > 1 and (
            head.name in LISP_DEFINERS or head.name.startswith("DEFINE-")):
        yield from _lisp_definition(head.name, form, nested)
    for item in form[1:]:
        yield from _lisp_definitions_in(item, True)


def _lisp_definition(head: str, form: list, nested: bool):
    from lisp_bridge.sexpr import Symbol

    target = form[1]
    if isinstance(target, list) and target and isinstance(target[0], Symbol):
        # (defun (setf name) ...), (defstruct (name options...)), (defmethod (setf name) ...)
        setf = target[0].name == "SETF" and len(target) > 1
        target = target[1] if setf else target[0]
    name = _designated_name(target)
    if name is None:
        return
    kind = head.lower()
    if head == "DEFMETHOD" and name[0] in STANDARD_GENERICS:
        pass
    else:
        params = form[2] if head in ("DEFUN", "DEFMACRO") and len(form) > 2 else None
        yield (kind if head != "DEFUN" else "defun"), name[0], name[1], params, nested
    if head == "DEFCLASS" and len(form) > 3 and isinstance(form[3], list):
        for accessor in _slot_functions(form[3]):
            yield "defclass accessor", accessor[0], accessor[1], None, nested


def _designated_name(target):
    """(NAME, written) of a symbol or string designator, else None."""
    from lisp_bridge.sexpr import Symbol

    if isinstance(target, Symbol):
        return target.name, target.text
    if isinstance(target, str):
        return target.upper(), target
    return None


def _slot_functions(slots: list):
    """The :accessor, :reader and :writer names of a defclass's slots: generic functions as
    global as any defun."""
    from lisp_bridge.sexpr import Symbol

    for slot in slots:
        if not isinstance(slot, list):
            continue
        options = slot[1:]
        for key, value in zip(options[::2], options[1::2], strict=False):
            if isinstance(key, Symbol) and key.name in ("ACCESSOR", "READER", "WRITER"):
                if isinstance(value, list) and len(value) > 1:
                    value = value[1]  # (setf name)
                name = _designated_name(value)
                if name is not None:
                    yield name


def _lisp_takes_two(params) -> bool:
    from lisp_bridge.sexpr import Symbol

    if not isinstance(params, list):
        return False
    required = optional = 0
    section = "required"
    for item in params:
        if isinstance(item, Symbol) and item.name.startswith("&"):
            section = item.name
            if section in ("&REST", "&BODY"):
                return required <= 2
            continue
        if section == "required":
            required += 1
        elif section == "&OPTIONAL":
            optional += 1
    return required <= 2 <= required + optional


READERS = {"python": python_definitions, "hy": hy_definitions, "lisp": lisp_definitions}


def read_definitions(path: Path, language: str, source: str) -> Definitions:
    """What SOURCE defines; Unreadable, NotReadHere, or a result: never anything else."""
    limit = STATIC_READ_LIMIT[language]
    if len(source) > limit:
        raise NotReadHere(f"larger than the {limit >> 10} KiB read for a {language} file")
    try:
        return READERS[language](source, path)
    except (Unreadable, NotReadHere):
        raise
    except RecursionError:
        raise NotReadHere("nested too deeply") from None
    except Exception as error:  # a reader's own limit we did not foresee: still one file's
        raise NotReadHere(f"the reader stopped: {type(error).__name__}") from error


# -- what follows from the definitions ------------------------------------------------------
def check_file(path: Path, language: str, source: str,
               warnings: list[str] | None = None) -> tuple[list[Problem], str | None]:
    """Problems found by reading, and the agent name the file defines (if it does); what
    limited the reading is added to WARNINGS."""
    warnings = [] if warnings is None else warnings
    try:
        found = read_definitions(path, language, source)
    except Unreadable as error:
        where = f"line {error.line}: " if error.line else ""
        message = error.message if len(error.message) <= 300 else error.message[:300] + "..."
        return [Problem("syntax-error", f"{path.name}: {where}{message}")], None
    except NotReadHere as error:
        warnings.append(f"{path.name} was not read before playing ({error}): its names and "
                        "definitions were checked only by loading it")
        return [], None
    warnings += found.notes
    expected = path.stem
    fold = str.upper if language == "lisp" else str  # Lisp's reader upcases names
    own = [f for f in found.functions if fold(f.name) == fold(expected)]
    others = [f for f in found.functions if fold(f.name) != fold(expected)
              and _looks_like_agent(f) and not _is_helper_of(f.name, expected)]
    problems = []
    if own:
        agent = expected
        if others:
            problems.append(Problem("several-agents", f"{path.name} defines {expected} and "
                                    f"also {_listed(others)}: one agent per file"))
    else:
        agent = None
        problems.append(_no_own_agent(path, found, others))
        if len(others) == 1 and problems[0].code == "file-name-mismatch":
            agent = others[0].written
    if language == "lisp":
        problems += _unprefixed(found, agent or expected, path, set(others))
    return problems, agent


def _no_own_agent(path: Path, found: Definitions, others: list[Function]) -> Problem:
    expected = path.stem
    differently = [f for f in found.functions if f.name.lower() == expected.lower()]
    if differently:
        written = differently[0]
        return Problem("file-name-mismatch", f"{path.name} defines {written.written} "
                       f"({written.where()}): the file and the function must have exactly "
                       "the same name, capitals included")
    if len(others) == 1:
        other = others[0]
        return Problem("file-name-mismatch", f"{path.name} defines {other.written} "
                       f"({other.where()}), not {expected}: name the file "
                       f"{other.written}{path.suffix} (or rename the function)")
    if others:
        return Problem("several-agents", f"{path.name} defines several agents "
                       f"({_listed(others)}) and none named {expected}")
    return Problem("no-agent", f"{path.name} defines no function named {expected}, taking "
                   "(hist score)")


def _looks_like_agent(function: Function) -> bool:
    """Named like a team (a capital first, letters only) and callable as (name hist score)."""
    name = function.written
    return (bool(name) and name[0].isupper() and name.isalpha()
            and any(c.islower() for c in name) and function.two_arguments)


def _is_helper_of(name: str, agent: str) -> bool:
    return name.lower().startswith(agent.lower()) and name.lower() != agent.lower()


def _listed(functions: list[Function]) -> str:
    return ", ".join(f"{f.written} ({f.where()})" for f in functions)


def _unprefixed(found: Definitions, agent: str, path: Path, reported) -> list[Problem]:
    prefix = agent.upper()  # |Escaped| names keep their case; compare as the reader would not
    offenders = [(kind, function) for kind, name, function in found.others
                 if not name.strip("*+%").upper().startswith(prefix)]
    offenders += [("defun", function) for function in found.functions
                  if not function.name.upper().startswith(prefix) and function not in reported]
    if not offenders:
        return []
    offenders.sort(key=lambda pair: pair[1].line)
    listed = "; ".join(f"{kind} {function.written} ({function.where()})"
                       for kind, function in offenders)
    return [Problem("helper-not-prefixed",
                    f"{path.name}: every name it defines must start with {agent} "
                    f"(all submissions share one Lisp image): {listed}")]
