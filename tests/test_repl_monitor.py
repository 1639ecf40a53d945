"""`(monitor ...)` in a student's SBCL REPL: real SBCL fed a script through a
pipe loads the file `pdharness lisp-init` names, defines agents and calls the original
`monitor`; the REPL serves its functions to the real `pdharness` it starts. The result is
the command line's for the same tournament and seed; functions that signal, loop or answer
wrongly are faults and the REPL survives them; a redefined function plays its new
definition; bad arguments and a missing pdharness are one-line Lisp errors."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli

ALPHA = """(defun Alpha (hist score)
  (declare (ignore score))
  (if (null hist)
      (list 'C 'C 'C)
      (list (second (car (last hist))) 'C (if (< (random 1.0) 0.5) 'C 'D))))"""
BETA = """(defun Beta (hist score)
  (if (> (first score) (second score)) (list 'C 'D 'C) (list 'D 'D (first (first hist)))))"""
# Beta on turn 1: (first (first nil)) is nil, not a move: an invalid answer, a fault
GAME = "'(.25 .1) '(5 9)"


def pdharness_folder() -> str:
    """The folder of the installed console script, the one this Python runs."""
    here = Path(sys.executable).parent
    if (here / "pdharness").exists():
        return str(here)
    found = shutil.which("pdharness")
    assert found, "pdharness is installed with the package (pip install -e .)"
    return str(Path(found).parent)


def repl(script: str, tmp_path, path=None, timeout=240):
    """SBCL's REPL reading `script` from a pipe, after loading the lisp-init file: what
    it printed on stdout (stderr went with it)."""
    status, init, err = run_cli("lisp-init")
    assert status == 0, err
    env = dict(os.environ, PATH=path if path is not None else
               pdharness_folder() + os.pathsep + os.environ.get("PATH", ""))
    done = subprocess.run(
        [shutil.which("sbcl") or "sbcl", "--noinform", "--disable-debugger", "--no-sysinit", "--no-userinit"],
        input=f'(load "{init.strip()}")\n{script}\n', capture_output=True, text=True,
        cwd=tmp_path, env=env, timeout=timeout)
    return done.stdout + done.stderr


def printed(output: str, label: str) -> str:
    found = re.findall(rf"^(?:\* )*{label} (.*)$", output, re.MULTILINE)  # after prompts
    assert found, output
    return found[-1]


def test_lisp_init_names_the_shipped_lisp_file():
    status, out, err = run_cli("lisp-init")
    assert status == 0 and err == ""
    path = Path(out.strip())
    assert path.name == "repl_monitor.lisp" and path.is_file()
    assert "(defun monitor (flip-params game-length agents" in path.read_text()


def test_the_repl_returns_what_the_command_line_gives(sbcl, tmp_path):
    """Two REPL functions (one draws random numbers) and two built-ins, seed 7: the same
    list as `pdharness tournament` with the same functions saved as files."""
    output = repl(f"""{ALPHA}
{BETA}
(format t "~&RESULT ~S~%" (monitor {GAME} '(#'random #'titfortat #'Alpha #'Beta)
                                   :seed 7 :isolation :none))""", tmp_path)
    result = printed(output, "RESULT")
    assert "rank" in output and "BETA" in output      # the table was printed
    (tmp_path / "ALPHA.lisp").write_text(ALPHA)
    (tmp_path / "BETA.lisp").write_text(BETA)
    status, out, err = run_cli("tournament", tmp_path / "ALPHA.lisp", tmp_path / "BETA.lisp",
                               "random", "titfortat", "--seed", "7", "--flip", "0.25", "0.1",
                               "--length", "5", "9", "--isolation", "process",
                               "--format", "lisp")
    assert status == 0, err
    assert result == out.strip().upper()  # the REPL's symbols print in upper case
    assert re.fullmatch(r"\(\((\w+ \d+\)( \()?){4}\)", result)


def test_faults_are_faults_and_the_repl_survives_them(sbcl, tmp_path):
    output = repl("""
(defun Raiser (hist score) (declare (ignore hist score)) (error "no idea"))
(defun Looper (hist score) (declare (ignore hist score)) (loop))
(defun Garbler (hist score) (declare (ignore hist score)) (list 'C 'X))
(defun Reader (hist score)    ; the REPL's input (the rest of this script) is not its own
  (declare (ignore hist score))
  (if (read-line *standard-input* nil nil) (list 'D 'D 'D) (list 'C 'C 'C)))
(format t "~&RESULT ~S~%"
        (monitor '(0 0) '(3 3) '(#'Raiser #'Looper #'Garbler #'Reader)
                 :seed 1 :timeout 0.2 :max-rounds 1 :isolation :none))
(format t "~&ALIVE ~D~%" (+ 1 2))""", tmp_path)
    assert printed(output, "ALIVE") == "3"
    table = output[output.index("rank"):]
    for name, fault in [("RAISER", "exception"), ("LOOPER", "timeout"),
                        ("GARBLER", "invalid")]:
        row = next(line for line in table.splitlines() if name in line)
        assert fault in row, table
    # the loop was stopped inside Lisp, call after call (3 turns x 3 opponents), and the
    # REPL kept serving it: never given up on (no crash)
    assert re.search(r"LOOPER .* 9 timeout$", table, re.MULTILINE), table
    assert re.search(r"READER .* -$", table, re.MULTILINE), table


def test_a_redefined_function_plays_its_new_definition(sbcl, tmp_path):
    output = repl("""
(defun Gamma (hist score) (declare (ignore hist score)) (list 'C 'C 'C))
(format t "~&FIRST ~S~%" (monitor '(0 0) '(4 4) '(#'Gamma #'defect) :seed 1 :print nil))
(defun Gamma (hist score) (declare (ignore hist score)) (list 'D 'D 'D))
(format t "~&SECOND ~S~%" (monitor '(0 0) '(4 4) '(#'Gamma #'defect) :seed 1 :print nil))
""", tmp_path)
    assert printed(output, "FIRST") == "((DEFECT 60) (GAMMA 0))"
    assert printed(output, "SECOND") in ("((DEFECT 12) (GAMMA 12))", "((GAMMA 12) (DEFECT 12))")
    assert "rank" not in output          # :print nil


ERRORS = """
(defmacro says (form)
  `(handler-case (progn ,form (format t "~&NO-ERROR~%"))
     (error (e) (format t "~&ERROR ~A~%" (remove #\\Newline (princ-to-string e))))))
"""


def test_bad_arguments_are_one_line_lisp_errors(sbcl, tmp_path):
    output = repl(ERRORS + """
(says (monitor '(.25) '(10 50) '(#'random #'titfortat)))
(says (monitor '(.25 .1) '(10 50) '(#'random #'titfortat) :seed -1))
(says (monitor '(.25 .1) '(10 50) '(#'random #'titfortat) :timeout 0))
(says (monitor '(.25 .1) '(10 50) '(#'random #'random)))
(says (monitor '(.25 .1) '(10 50) '(#'random #'nosuchagent) :isolation :none))
(says (monitor '(.25 .1) '(50 10) '(#'random #'titfortat) :isolation :none))
(format t "~&ALIVE~%")""", tmp_path)
    errors = re.findall(r"^(?:\* )*ERROR (.*)$", output, re.MULTILINE)
    assert len(errors) == 6 and "NO-ERROR" not in output and "ALIVE" in output, output
    assert all(e.startswith("monitor: ") for e in errors)
    assert "flip-params" in errors[0] and ":seed" in errors[1] and ":timeout" in errors[2]
    assert "twice" in errors[3]
    assert "nosuchagent" in errors[4] and "built-in" in errors[4]   # from pdharness itself
    assert "length" in errors[5].lower()


def test_a_missing_pdharness_is_one_clear_lisp_error(sbcl, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    output = repl(ERRORS + "(says (monitor '(.25 .1) '(10 50) '(#'random #'titfortat)))",
                  tmp_path, path=str(empty))
    assert printed(output, "ERROR") == ('monitor: pdharness is not on PATH: install pdharness '
                                        '(pip install pdharness) or give :pdharness '
                                        '"/path/to/pdharness"')


@pytest.mark.slow   # two runs of the console script
def test_repl_serve_is_not_for_users():
    """Started by hand, it says what starts it, in one line."""
    status, out, err = run_cli("repl-serve", "--requests", "5", "--result", "x", "random")
    assert status == 2 and err.count("\n") == 1 and "lisp-init" in err
    status, out, err = run_cli("--help")
    assert "repl-serve" not in out and "lisp-init" in out


# -- the monitor's side, against a stand-in REPL on real pipes (no SBCL) ----------------------
class StandIn:
    """Plays the REPL's part for one agent: reads its requests, answers with `answer`
    (a function of the request line: the reply lines to write, without the token)."""

    def __init__(self, answer, name="ME"):
        from harness.isolation.handles.repl import ReplChannels

        self.requests_read, requests_write = os.pipe()
        replies_read, self.replies_write = os.pipe()
        self.channels = ReplChannels(requests_write, {name: replies_read}, "t0k3n")
        self.answer = answer
        self.seen: list[str] = []
        self.write("READY")
        import threading

        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def write(self, *lines):
        try:
            os.write(self.replies_write, "".join(f"t0k3n {line}\n" for line in lines).encode())
        except OSError:
            pass    # the monitor gave up on the channel

    def serve(self):
        with os.fdopen(self.requests_read, "r") as requests:
            for line in requests:
                self.seen.append(line.rstrip("\n"))
                self.write(*self.answer(line.split(" ", 1)[1].rstrip("\n")))


def play_against_stand_in(answer, turns=3, timeout=0.2):
    from harness.agents.specs import AgentSpec, builtin_spec
    from harness.core.rules import GameParams
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle
    from harness.isolation.handles.repl import serve_from

    stand_in = StandIn(answer)
    serve_from(stand_in.channels)
    me = open_handle(AgentSpec("ME", "repl", "repl"), Isolation("none", timeout))
    other = open_handle(builtin_spec("cooperate"), Isolation("none"))
    try:
        records = [play_game(me, other, turns, seed, GameParams()) for seed in (1, 2)]
    finally:
        me.close()
    return records, stand_in


def my_faults(records):
    return [fault for record in records
            for (side, _turn), fault in sorted(record.fault_at.items()) if side == "a"]


def test_repl_replies_are_read_by_the_process_handles_checks():
    """Channel numbers on requests, the protocol's grammar on replies: MOVES, a warning,
    an INVALID, an unreadable line."""
    replies = iter(["MOVES CCD", "MOVES DDD WARN spelled in lower case", "INVALID (C X)",
                    "MOVES CC", "ERROR boom", "TIMEOUT stopped"])
    records, stand_in = play_against_stand_in(
        lambda request: [next(replies)] if request.startswith("TURN") else [])
    assert records[0].intended_a[:2] == ["CCD", "DDD"]
    assert stand_in.seen[0].startswith("0 GAME ") and stand_in.seen[1] == "0 TURN"
    assert [f.kind for f in my_faults(records)] == ["invalid", "invalid", "exception",
                                                    "timeout"]


@pytest.mark.slow   # the backstop: a silent REPL is waited for 2 s past its own limit
def test_a_repl_that_breaks_the_protocol_or_never_answers_is_given_up_on():
    """Two replies to one call: a protocol violation, as from a host process; the channel
    is closed for good, and the next game says the REPL no longer serves it."""
    records, _ = play_against_stand_in(
        lambda request: ["MOVES CCC", "MOVES DDD"] if request.startswith("TURN") else [])
    faults = my_faults(records)
    assert faults[0].kind == "invalid" and faults[0].message.startswith("protocol violation")
    assert any(f.kind == "crash" and "no longer serves it" in f.message for f in faults)
    silent, _ = play_against_stand_in(lambda request: [], turns=1, timeout=0.05)
    late = my_faults(silent)[0]
    assert late.kind == "timeout" and "stops asking this REPL" in late.message
