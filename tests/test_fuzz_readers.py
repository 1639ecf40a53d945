"""Every reader of untrusted text is total: for any input it returns a result or its own
one-line problem, and nothing else leaves it (no RecursionError, OverflowError, ValueError,
csv.Error...). Inputs: random bytes and text, and the shapes that broke readers before (deep
nesting, huge numbers, long runs of one character). Time per KB is the benchmark's job
(benchmarks/readers_worst_case.py), never asserted here."""
from __future__ import annotations

from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fuzz_inputs import csv_bytes, hy_texts, lisp_texts, python_texts

pytestmark = pytest.mark.slow  # hundreds of drawn inputs per reader: a minute of CPU

FUZZ = settings(derandomize=True, deadline=None, max_examples=150,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
SLOW_FUZZ = settings(FUZZ, max_examples=40)   # Hy's reader takes ~0.1 s per KiB


def one_line(text: str) -> bool:
    return bool(text) and "\n" not in text


# -- Lisp ---------------------------------------------------------------------------------
@FUZZ
@given(lisp_texts())
def test_the_lisp_reader_returns_forms_or_a_syntax_error(text):
    from lisp_bridge.sexpr import LispSyntaxError, read_all

    try:
        read_all(text)
    except LispSyntaxError as error:
        assert one_line(error.message) and error.line >= 1 and error.column >= 1


@FUZZ
@given(lisp_texts(), st.sampled_from(["flip", "length", "agents"]))
def test_the_monitor_form_is_a_call_or_a_one_line_form_error(text, where):
    from harness.cli.commands.options import MAX_GAME_LENGTH
    from lisp_bridge.monitor_call import MonitorFormError, parse_monitor_call

    slots = {"flip": "'(.25 .1)", "length": "'(10 50)", "agents": "'(#'random)"}
    slots[where] = text
    try:
        call = parse_monitor_call(f"(monitor {slots['flip']} {slots['length']} "
                                  f"{slots['agents']})", MAX_GAME_LENGTH)
    except MonitorFormError as error:
        assert one_line(str(error)) and len(str(error)) < 500
    else:
        assert all(1 <= n <= 10 ** 6 for n in call.length)


# -- static reads, through what validate calls --------------------------------------------
def _check_is_total(tmp_path, language, suffix, text):
    from harness.validation.static import check_file

    path = tmp_path / f"AdamsBaker{suffix}"
    warnings: list[str] = []
    problems, agent = check_file(path, language, text, warnings)
    assert all(one_line(p.message) for p in problems)
    assert all(one_line(w) for w in warnings)
    assert agent is None or isinstance(agent, str)


@FUZZ
@given(python_texts())
def test_the_python_static_read_gives_a_verdict(tmp_path, text):
    _check_is_total(tmp_path, "python", ".py", text)


@SLOW_FUZZ
@given(hy_texts(max_size=1500))
def test_the_hy_static_read_gives_a_verdict(tmp_path, text):
    _check_is_total(tmp_path, "hy", ".hy", text)


@FUZZ
@given(lisp_texts())
def test_the_lisp_static_read_gives_a_verdict(tmp_path, text):
    _check_is_total(tmp_path, "lisp", ".lisp", text)


@FUZZ
@given(st.binary(max_size=4000), st.sampled_from([".py", ".hy", ".lisp", ".lsp"]))
def test_a_submission_of_random_bytes_gets_a_verdict(tmp_path, data, suffix):
    from harness.validation.submission import read_submission

    path = tmp_path / f"AdamsBaker{suffix}"
    path.write_bytes(data)
    verdict = read_submission(path)
    assert all(one_line(p.message) for p in verdict.problems)


@FUZZ
@given(python_texts())
def test_the_team_line_and_the_naming_rule_never_fail(text):
    from harness.validation.naming import check_name, declared_team

    team = declared_team(text)
    assert team is None or all(isinstance(name, str) for name in team)
    for line in text.splitlines()[:3]:
        check_name(line.strip())


# -- rosters ------------------------------------------------------------------------------
@FUZZ
@given(csv_bytes())
def test_a_roster_reads_or_is_a_one_line_error(tmp_path, data):
    from harness.core.errors import HarnessError
    from harness.validation.roster import Roster

    path = tmp_path / "roster.csv"
    path.write_bytes(data)
    try:
        roster = Roster.read(path)
    except HarnessError as error:
        assert one_line(str(error))
    else:
        assert roster.teams and all(team.members for team in roster.teams)
        roster.closest("AdamsBaker")


# -- command-line options -----------------------------------------------------------------
NUMBERS = st.one_of(
    st.sampled_from(["1e8", "1e300", "inf", "-inf", "nan", "-1", "0", "-0.0", "1e-320",
                     "99999999999999999999999", "9" * 5000, "0x10", "1_000", " 3 ", "", "1.5",
                     "3", "16", "1000", "1001", str(2 ** 63), str(2 ** 63 - 1)]),
    st.integers(-2 ** 70, 2 ** 70).map(str), st.floats().map(repr),
    # anything argv can hold: no NUL (a C string ends there); undecodable bytes arrive as
    # the surrogates U+DC80..U+DCFF (Python decodes argv with surrogateescape)
    st.text(st.one_of(st.characters(blacklist_characters="\x00",
                                    blacklist_categories=("Cs",)),
                      st.integers(0xDC80, 0xDCFF).map(chr)), max_size=12))
REQUIRED = {"tournament": ["random"], "monitor": ["(monitor '(.25 .1) '(10 50) '(#'random))"],
            "play": ["random", "titfortat"], "validate": ["x.py"], "show": ["x.sqlite"],
            "resume": ["x.sqlite"], "new": ["Adams"], "autograder": ["out"]}


def _valued_options():
    """(command, option name, nargs) for every option of every command that takes a value."""
    from harness.cli import COMMANDS, cli

    found = []
    for name in COMMANDS:
        command = cli.get_command(None, name)
        if command is None:
            continue
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag and param.opts[0] != "--help":
                found.append((name, param.opts[0], param.nargs))
    return found


VALUED = _valued_options()


@pytest.mark.parametrize("command_name, option, nargs", VALUED)
@settings(FUZZ, max_examples=15)
@given(values=st.lists(NUMBERS, min_size=4, max_size=4))
def test_every_option_value_is_accepted_or_a_usage_error(command_name, option, nargs, values):
    """Parsing (what click does before a command runs) and the settings built from it end
    in a value or a usage error: never an overflow or a crash."""
    from harness.cli import cli
    from harness.core.errors import HarnessError

    command = cli.get_command(None, command_name)
    args = [*REQUIRED.get(command_name, []), option, *values[:max(nargs, 1)]]
    try:
        context = command.make_context(command_name, args)
    except click.ClickException as error:
        assert one_line(error.format_message().strip())
        return
    except HarnessError as error:  # a course file that is not there, or not TOML
        assert one_line(str(error))
        return
    except OSError as error:  # a path the system refuses: main() says so in one line, exit 2
        from harness.cli import _PATH_ERRORS

        assert error.errno in _PATH_ERRORS and error.filename is not None
        return
    if command_name in ("tournament", "monitor"):
        from harness.cli.commands.options import settings as settings_of

        try:
            settings_of(context.params)
        except HarnessError as error:
            assert one_line(str(error))
    elif command_name == "play":
        from harness.cli.commands.options import game_params, isolation

        try:
            game_params(context.params), isolation(context.params)
        except HarnessError as error:
            assert one_line(str(error))


@pytest.mark.parametrize("arguments", [
    ["play", "random", "titfortat", "--timeout", "1e8"],
    ["play", "random", "titfortat", "--timeout", "nan"],
    ["validate", "--timeout", "inf", "x.py"],
    ["tournament", "random", "defect", "--memory-limit", "9" * 30],
    ["tournament", "random", "defect", "--payoffs", "5", "3", "1", "9" * 30],
    ["monitor", "--timeout", "1e300", "(monitor '(.25 .1) '(10 50) '(#'random #'defect))"],
    ["show", "--game", str(2 ** 63), "missing.sqlite"],
    ["validate", "9" * 5000],                        # a name longer than the system takes
    ["tournament", "random", "defect", "--db", "9" * 5000],
    ["tournament", "random", "defect", "--config", "9" * 5000],
])
def test_bad_numbers_are_one_line_and_exit_2_in_a_real_process(arguments):
    from conftest import run_cli

    status, out, err = run_cli(*arguments, timeout=120)
    assert status == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err


def test_the_fuzzed_options_cover_every_command():
    assert {name for name, _, _ in VALUED} >= {"tournament", "monitor", "play", "validate",
                                              "show", "resume"}
    assert Path(__file__).with_name("fuzz_inputs.py").exists()


# -- the course file and experiment files -------------------------------------------------
def _structured_files():
    """TOML and JSON shaped like the files, with deep arrays, huge numbers, odd bytes."""
    deep = st.integers(0, 5000).map(lambda n: "[" * n + "]" * n)
    values = st.one_of(st.sampled_from(["1", "1e8", "inf", "nan", '"x"', "true", "-1"]),
                       st.integers(1, 6000).map(lambda n: "9" * n), deep,
                       st.text(max_size=20).map(lambda t: '"' + t.replace('"', "") + '"'))
    keys = st.sampled_from(["timeout", "seed", "jobs", "flip", "length", "types", "roster"])
    toml = st.tuples(st.sampled_from(["", "[tournament]\n", "[validate]\n"]), keys, values).map(
        lambda p: f"{p[0]}{p[1]} = {p[2]}\n")
    json_text = st.tuples(keys, values).map(lambda p: f'{{"{p[0]}": {p[1]}}}')
    return st.one_of(toml.map(str.encode), json_text.map(str.encode), st.binary(max_size=500))


@FUZZ
@given(_structured_files(), st.sampled_from(["tournament", "validate", "play"]))
def test_a_course_file_reads_or_is_a_one_line_error(tmp_path, data, command_name):
    from harness.cli import cli, course
    from harness.core.errors import HarnessError

    path = tmp_path / "pdharness.toml"
    path.write_bytes(data)
    try:
        course.read(path, cli, command_name)
    except HarnessError as error:
        assert one_line(str(error))


@FUZZ
@given(_structured_files(), st.sampled_from(["p.json", "p.toml"]))
def test_an_experiment_file_reads_or_is_a_one_line_error(tmp_path, data, name):
    from harness.agents.population import parse_file, population_types
    from harness.core.errors import HarnessError

    try:
        population_types(parse_file(data, tmp_path / name), tmp_path, name)
    except HarnessError as error:
        assert one_line(str(error))


@pytest.mark.parametrize("data, said", [(b"(monitor \xff)", "not UTF-8"),
                                        (b"(" * (1 << 20) + b"(", "longer than")],
                         ids=["latin-1", "over-1-MiB"])
def test_a_monitor_form_on_stdin_is_read_bounded(data, said):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    done = subprocess.run([sys.executable, "-m", "harness", "monitor", "-"], input=data,
                          capture_output=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8"))
    err = done.stderr.decode()
    assert done.returncode == 2 and said in err and len(err.strip().splitlines()) == 1
