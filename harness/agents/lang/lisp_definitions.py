"""The definitions of a Common Lisp agent file, read through lisp_bridge's reader with the
installed SBCL's features (never evaluated: no `#.`, no macro)."""
from __future__ import annotations

from pathlib import Path

from lisp_bridge.sbcl_features import sbcl_features
from lisp_bridge.sexpr import LispSyntaxError, read_all_with_lines
from lisp_bridge.sexpr_data import Symbol

from ..cache import cache_dir
from .definitions import Definitions, Function, Unreadable

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


def lisp_definitions(source: str, path: Path) -> Definitions:
    features = sbcl_features(cache_dir)
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
    if isinstance(target, Symbol):
        return target.name, target.text
    if isinstance(target, str):
        return target.upper(), target
    return None


def _slot_functions(slots: list):
    """The :accessor, :reader and :writer names of a defclass's slots: generic functions as
    global as any defun."""
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
