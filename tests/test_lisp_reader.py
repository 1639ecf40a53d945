"""The Common Lisp reader and printer in lisp_bridge.sexpr, and the monitor call."""
import pytest
from hypothesis import given, strategies as st

from harness.cli.commands.options import MAX_GAME_LENGTH
from lisp_bridge.monitor_call import MonitorFormError, parse_monitor_call
from lisp_bridge.sexpr import dumps, read_all, read_all_with_lines, read_one
from lisp_bridge.sexpr_data import Char, LispSyntaxError, Symbol, symbol

from conftest import run_cli

symbols = st.from_regex(r"[a-zA-Z][a-zA-Z0-9*+<>=-]{0,8}", fullmatch=True).map(symbol)
atoms = st.one_of(symbols, st.integers(-10 ** 9, 10 ** 9),
                  st.text(st.characters(blacklist_categories=("Cs",)), max_size=8),
                  st.sampled_from("CDcd ").map(Char))
forms = st.recursive(atoms, lambda inner: st.lists(inner, max_size=5), max_leaves=25)


@pytest.mark.slow  # measured: seconds of CPU
@given(forms)
def test_printing_then_reading_gives_the_same_form(form):
    assert read_one(dumps(form)) == form


def test_the_original_call_reads_as_quoted_data():
    form = read_one("(monitor '(.25 .1) '(10 50) '(#'random #'titfortat #'KhosmoodLevinson))")
    quote, function = Symbol("QUOTE"), Symbol("FUNCTION")
    assert form == [symbol("monitor"), [quote, [0.25, 0.1]], [quote, [10, 50]],
                    [quote, [[function, symbol("random")], [function, symbol("titfortat")],
                             [function, symbol("KhosmoodLevinson")]]]]
    assert form[3][1][2][1].text == "KhosmoodLevinson"


def test_symbols_are_upper_cased_like_cl_and_keep_their_spelling():
    assert read_one("khosmoodLevinson") == Symbol("KHOSMOODLEVINSON")
    assert read_one("|Mixed Case|").name == "Mixed Case"


def test_numbers_of_every_common_spelling():
    assert read_all("1 -2 .25 1/4 4/2 1e3 1.5d0 10.") == [1, -2, 0.25, read_one("1/4"), 2,
                                                           1000.0, 1.5, 10]
    assert read_one("1+") == symbol("1+")


def test_comments_strings_and_features_are_skipped_as_cl_would():
    text = '; a comment (\n#| block #| nested |# |#\n(a "str ) ing" #\\) #+sbcl b #-sbcl c)'
    assert read_all(text) == [[symbol("a"), "str ) ing", Char(")"), symbol("b")]]


def test_forms_know_their_line():
    located = read_all_with_lines("\n\n(defun a ())\n; x\n  (defvar b)")
    assert [(l.line, l.column) for l in located] == [(3, 1), (5, 3)]


@pytest.mark.parametrize("text,line,needle", [
    ("(defun a ()\n  (b", 1, "never closed"),
    ("(a)\n)", 2, "unexpected ')'"),
    ('(a "b\n c)', 1, "unterminated string"),
    ("\n#.(delete-file \"x\")", 2, "read-time evaluation"),
    ("#|\n", 1, "unterminated #|"),
    ("(a . )", 1, "dotted"),
])
def test_syntax_errors_name_their_line(text, line, needle):
    with pytest.raises(LispSyntaxError) as caught:
        read_all(text)
    assert caught.value.line == line
    assert needle in str(caught.value)


def test_a_monitor_call_becomes_parameters():
    call = parse_monitor_call("(monitor '(.25 .1) '(10 50) (list #'random 'titfortat x))",
                              MAX_GAME_LENGTH)
    assert call.flip == (0.25, 0.1) and call.length == (10, 50)
    assert call.agents == ["random", "titfortat", "x"]


@pytest.mark.parametrize("text,needle", [
    ("(monitor '(.25 .1) '(10 50)", "never closed"),
    ("(monitor '(.25) '(10 50) '(#'random))", "flipParams"),
    ("(monitor '(.25 .1) '(10.5 50) '(#'random))", "whole numbers"),
    ("(foo 1 2 3)", "expected a call"),
    ("(monitor '(.25 .1) '(10 50) '(#'random) 4)", "3 arguments"),
])
def test_malformed_calls_are_clear_errors(text, needle):
    with pytest.raises(MonitorFormError, match=needle):
        parse_monitor_call(text, MAX_GAME_LENGTH)


def test_the_monitor_command_prints_a_lisp_list_on_one_line():
    status, out, err = run_cli("monitor", "(monitor '(.25 .1) '(10 20) '(#'random #'titfortat "
                                          "#'KhosmoodLevinson #'DEFECT))",
                               "--seed", "3", "--isolation", "none")
    assert status == 0, err
    assert len(out.strip().splitlines()) == 1
    result = read_one(out)
    assert sorted(pair[0].text for pair in result) == [
        "KhosmoodLevinson", "defect", "random", "titfortat"]
    assert all(isinstance(pair[1], int) for pair in result)
    assert "seed 3" in err
    status, same, _ = run_cli("monitor", "-", "--seed", "3", "--isolation", "none",
                              input="(monitor '(.25 .1) '(10 20) '(#'random #'titfortat "
                                    "#'KhosmoodLevinson #'DEFECT))")
    assert same == out


def test_the_monitor_command_records_like_the_tournament(tmp_path):
    record = tmp_path / "run.sqlite"
    status, out, err = run_cli("monitor", "(monitor '(.25 .1) '(10 12) '(#'random #'defect))",
                               "--seed", "5", "--isolation", "none", "--db", record, "--quiet")
    assert status == 0, err
    status, shown, _ = run_cli("show", record)
    assert status == 0 and "seed 5" in shown and "length 10-12" in shown


def test_the_monitor_command_rejects_bad_forms_in_one_line():
    status, _, err = run_cli("monitor", "(monitor '(.25 .1) '(10 50) '(#'random)")
    assert status == 2 and "never closed" in err and len(err.strip().splitlines()) == 1
    status, _, err = run_cli("monitor", "(monitor '(.25 .1) '(10 50) '(#'nobody #'random))")
    assert status == 2 and "unknown agent 'nobody'" in err
