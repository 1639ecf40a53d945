"""Hostile: answers text that is code, in Python and in Lisp, hoping someone evaluates it."""

MARKER = "/tmp/pdharness-hostile-evaluated"
PYTHON = f"__import__('os').system('touch {MARKER}')"
LISP = f'#.(sb-ext:run-program "/usr/bin/touch" (list "{MARKER}"))'


def Evaluator(hist, score):
    return [PYTHON, LISP, "(C C C)", ["C", "C", PYTHON]][len(hist) // 3 % 4]
