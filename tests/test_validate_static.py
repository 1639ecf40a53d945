"""What a file defines, read by real readers: the agent, other agents, helpers' names."""
from pathlib import Path

import pytest

from harness.validation.static import check_file


def check(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    language = {".py": "python", ".hy": "hy", ".lisp": "lisp"}[path.suffix]
    problems, agent = check_file(path, language, source)
    return [p.code for p in problems], agent, [p.message for p in problems]


# -- Python -----------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    "def AdamsBrown(hist, score):\n    return 'CCC'\n",
    "AdamsBrown = lambda hist, score: 'CCC'\n",
    "def make(first):\n    return lambda hist, score: first * 3\n\n\nAdamsBrown = make('C')\n",
    "try:\n    import numpy\nexcept ImportError:\n    pass\n\n"
    "if True:\n    def AdamsBrown(hist, score):\n        return 'CCC'\n",
    "def Tally(hist):\n    return len(hist)\n\n\ndef AdamsBrown(hist, score):\n    return 'CCC'\n",
    "class Memory:\n    def Other(self, hist, score): pass\n\n\n"
    "def AdamsBrown(hist, score):\n    return 'CCC'\n",
])
def test_python_ways_of_defining_one_agent(tmp_path, source):
    assert check(tmp_path, "AdamsBrown.py", source)[:2] == ([], "AdamsBrown")


def test_python_other_agents_are_two_argument_team_names(tmp_path):
    codes, _, messages = check(tmp_path, "AdamsBrown.py",
                               "def AdamsBrown(hist, score): pass\n"
                               "def Backup(hist, score=None): pass\n")
    assert codes == ["several-agents"] and "Backup (line 2)" in messages[0]


def test_python_a_function_differing_only_in_case(tmp_path):
    codes, _, messages = check(tmp_path, "AdamsBrown.py", "def adamsbrown(hist, score): pass\n")
    assert codes == ["file-name-mismatch"] and "capitals included" in messages[0]


def test_python_several_agents_and_none_named_after_the_file(tmp_path):
    codes, agent, _ = check(tmp_path, "AdamsBrown.py",
                            "def ChenDiaz(h, s): pass\ndef EvansFord(h, s): pass\n")
    assert codes == ["several-agents"] and agent is None


# -- Hy ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    "(defn AdamsBrown [hist score] ['C 'C 'C])",
    "(defn [staticmethod] AdamsBrown [hist score] ['C 'C 'C])",
    "(setv AdamsBrown (fn [hist score] ['C 'C 'C]))",
    "(defn AdamsBrown-helper [x] x)\n(defn Tally [hist] 1)\n(defn AdamsBrown [hist score] 1)",
    '(defn AdamsBrown [hist score]\n  ;; (defn Other [h s]) in a comment\n  "(defn Other [h s])")',
])
def test_hy_ways_of_defining_one_agent(tmp_path, source):
    assert check(tmp_path, "AdamsBrown.hy", source)[:2] == ([], "AdamsBrown")


def test_hy_names_are_compared_mangled(tmp_path):
    codes, _, _ = check(tmp_path, "adams_brown.hy", "(defn adams-brown [hist score] 1)")
    assert codes == []   # the naming rule, not the file check, objects to this name


# -- Common Lisp -----------------------------------------------------------------------------
def test_lisp_names_are_case_insensitive(tmp_path):
    assert check(tmp_path, "AdamsBrown.lisp", "(defun adamsbrown (hist score) nil)")[0] == []


def test_lisp_every_kind_of_definition_is_checked(tmp_path):
    source = """
(defun AdamsBrown (hist score) (declare (ignore hist score)) (list 'C 'C 'C))
(defvar *seen* 0)
(defconstant +limit+ 3)
(defgeneric judge (x))
(defmethod judge ((x integer)) x)
(define-condition oops (error) ())
(deftype move () '(member C D))
(defun (setf cell) (value) value)
(defclass AdamsBrown-box () ((content :reader content :writer (setf box-content))))
(eval-when (:compile-toplevel :load-toplevel :execute)
  (defmacro quickly (&body body) `(progn ,@body)))
(defparameter *AdamsBrown-ok* 1)
(defvar +AdamsBrown-ok+ 1)
(defun AdamsBrown-ok (x) x)
(defstruct (AdamsBrown-state (:conc-name AdamsBrown-)) moves)
(defmacro AdamsBrown-define (name) `(defun ,name () 'generated))
'(defun quoted-data ())
"""
    codes, _, [message] = check(tmp_path, "AdamsBrown.lisp", source)
    assert codes == ["helper-not-prefixed"]
    for offender in ("defvar *seen*", "defconstant +limit+", "defgeneric judge",
                     "defmethod judge", "define-condition oops", "deftype move",
                     "defun cell", "defclass accessor content", "defclass accessor box-content",
                     "defmacro quickly (inside the form at line 11)"):
        assert offender in message, offender
    for fine in ("AdamsBrown-ok", "AdamsBrown-box", "AdamsBrown-state", "AdamsBrown-define",
                 "quoted-data", "generated"):
        assert fine not in message, fine


def test_lisp_escaped_names_and_package_prefixes(tmp_path):
    source = ("(defun |AdamsBrown-helper| () 1)\n(defun cl-user::stray () 2)\n"
              "(defun AdamsBrown (hist score) (declare (ignore hist score)) (list 'C 'C 'C))")
    codes, _, messages = check(tmp_path, "AdamsBrown.lisp", source)
    assert codes == ["helper-not-prefixed"] and "stray" in messages[0]
    assert "AdamsBrown-helper" not in messages[0]


def test_lisp_other_agents_are_not_reported_twice(tmp_path):
    codes, _, messages = check(tmp_path, "AdamsBrown.lisp",
                               "(defun AdamsBrown (h s) nil)\n(defun Grudger (h s) nil)\n"
                               "(defun helper (x) x)")
    assert codes == ["several-agents", "helper-not-prefixed"]
    assert "Grudger" not in messages[1] and "helper" in messages[1]


@pytest.mark.parametrize("source,line", [
    ("(defun AdamsBrown (h s)\n  (list 'C 'C 'C)", 1),
    ("(defun AdamsBrown (h s) nil))\n", 1),
    ('(defun AdamsBrown (h s)\n  "unclosed)\n', 2),
    ("(defun AdamsBrown (h s) #.(run-me))", 1),
])
def test_lisp_syntax_errors_name_their_line(tmp_path, source, line):
    codes, agent, [message] = check(tmp_path, "AdamsBrown.lisp", source)
    assert codes == ["syntax-error"] and agent is None
    assert message.startswith(f"AdamsBrown.lisp:{line}: ")   # the form every message uses


def test_the_bundled_agents_pass_the_static_checks():
    bundled = Path(__file__).resolve().parent.parent / "student_agents"
    for path in sorted(bundled.glob("[A-Z]*.*")):
        language = {".py": "python", ".hy": "hy", ".lisp": "lisp"}[path.suffix]
        problems, agent = check_file(path, language, path.read_text(encoding="utf-8"))
        assert problems == [] and agent == path.stem, path
