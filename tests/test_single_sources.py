"""Facts that have one home: the time limit is the enforced one (Isolation.timeout), also
where it is recorded and printed; --format choices come from one definition; the command
line, the Python API and the JSON agree on every parameter's default."""
import inspect

import click
import pytest
from hypothesis import given, strategies as st

from harness.core.rules import GameLength
from harness.engine.parameters import TABLE
from harness.engine.tournament import Settings
from harness.isolation.handles.opening import Isolation
from harness.present.formats import params_dict

from conftest import AGENTS, run_cli


@given(st.floats(0.01, 3600))
def test_the_time_limit_recorded_and_printed_is_the_enforced_one(timeout):
    from harness.store import db

    settings = Settings(isolation=Isolation("process", timeout))
    assert params_dict(settings)["timeout"] == timeout
    row = db.run_row(1, settings, 0, None)
    assert row["timeout"] == timeout
    assert db.settings_of(row).isolation.timeout == timeout


def _commands():
    from harness.cli import COMMANDS, cli

    return {name: cli.get_command(None, name) for name in COMMANDS}


def test_every_format_option_offers_one_of_the_declared_lists():
    from harness.cli.commands.options import PLAIN_FORMATS, RESULT_FORMATS

    seen = 0
    for command in _commands().values():
        for param in getattr(command, "params", []):
            if param.name == "format":
                seen += 1
                assert tuple(param.type.choices) in (RESULT_FORMATS, PLAIN_FORMATS)
                assert param.default == param.type.choices[0]
    assert seen >= 5


@pytest.mark.parametrize("keyword", ["max_rounds", "moves_per_turn", "jobs", "seed"])
def test_an_infinite_whole_number_is_a_bad_value_not_a_crash(keyword):
    from harness.api import monitor
    from harness.core.errors import HarnessError

    with pytest.raises(HarnessError, match=f"^{keyword}: Invalid value: inf is not a valid"):
        monitor((0.1, 0.1), (5, 5), ["titfortat", "defect"], isolation="none",
                **{keyword: float("inf")})


def test_a_result_format_is_one_registered_function(capsys):
    """--format offers the registered forms in their order, and printing a result goes
    through the registry alone: a form registered once is printed, with no other change."""
    from harness.agents.specs import resolve
    from harness.cli.commands.options import RESULT_FORMATS
    from harness.engine.tournament import run_tournament
    from harness.present import formats, outputs

    assert RESULT_FORMATS == tuple(formats.FORMATS) == ("table", "json", "lisp", "csv")
    result = run_tournament(resolve(["titfortat", "defect"]), 1,
                            Settings(isolation=Isolation("none")))

    @formats.result_format("names", seed_on_stderr=True)
    def names(result, roster, incomplete):
        return " ".join(name for name, _score in result.pairs())

    try:
        outputs.deliver(result, outputs.Outputs(format="names"))
    finally:
        del formats.FORMATS["names"]
    printed = capsys.readouterr()
    assert printed.out.split() == [name for name, _score in result.pairs()]
    assert printed.err == "seed 1\n"


def test_every_declared_parameter_is_an_option_a_keyword_and_json_with_one_default():
    from harness.api import monitor
    from harness.engine.parameters import TABLE, defaults, settings

    options = {p.name: p for p in _commands()["tournament"].params
               if isinstance(p, click.Option)}
    keywords = inspect.signature(monitor).parameters
    default_settings = Settings()
    printed = params_dict(default_settings)
    for parameter in TABLE:
        option = options[parameter.name]
        assert parameter.option in option.opts
        assert option.default == (parameter.default or False if parameter.flag
                                  else parameter.default), parameter.name
        if parameter.keyword:
            assert keywords[parameter.keyword].default == parameter.default, parameter.name
        if parameter.json and parameter.in_json(default_settings):
            assert printed[parameter.json] == parameter.to_json(parameter.default)
    # the defaults make the settings a run makes when given nothing
    assert settings(defaults()) == default_settings


def test_the_json_params_keep_their_contracted_shape():
    """docs/interface.md: the keys of "params" and how each is written."""
    printed = params_dict(Settings())
    assert list(printed) == ["flip", "length", "moves_per_turn", "decay", "timeout",
                             "payoffs", "default_answer", "isolation", "max_rounds",
                             "max_faults"]
    assert printed["flip"] == [0.25, 0.1] and printed["length"] == [10, 50]
    assert printed["payoffs"] == {"T": 5, "R": 3, "P": 1, "S": 0}
    geometric = params_dict(Settings(length=GameLength(1, 50, "geometric", 0.1)))
    assert (geometric["horizon"], geometric["stop_prob"]) == ("geometric", 0.1)


@st.composite
def parameter_values(draw):
    from harness.core.rules import DECAY_MODES

    r, p = 3 + draw(st.integers(0, 3)), 1
    t, s_ = r + 1, draw(st.integers(-1, 0))   # keeps T > R > P > S and 2R > T + S
    return {"flip": (draw(st.floats(0, 1)), draw(st.floats(0, 5))),
            "length": tuple(sorted(draw(st.lists(st.integers(1, 99), min_size=2,
                                                 max_size=2)))),
            "moves_per_turn": draw(st.integers(1, 9)),
            "decay": draw(st.sampled_from(DECAY_MODES)),
            "timeout": draw(st.floats(0.01, 3600)),
            "payoffs": (t, r, p, s_),
            "on_fault": draw(st.sampled_from(["cooperate", "defect"])),
            "isolation": draw(st.sampled_from(["sandbox", "process", "none"])),
            "memory_limit": draw(st.integers(16, 1 << 20)),
            "jobs": draw(st.none() | st.integers(1, 64)),
            "max_rounds": draw(st.none() | st.integers(1, 99)),
            "max_faults": draw(st.none() | st.integers(1, 99)),
            "keep_broken": draw(st.booleans())}


@given(parameter_values())
def test_each_parameter_reads_back_from_the_settings_it_made(values):
    from harness.engine.parameters import TABLE, settings

    made = settings(values)
    for parameter in TABLE:
        if parameter.name in values and parameter.read is not None:
            assert parameter.read(made) == values[parameter.name], parameter.name


@given(parameter_values())
def test_settings_are_written_in_one_form_and_read_back_from_it(values):
    """Settings.as_dict is the one serialization and Settings.from_dict the one constructor:
    the command line's values, a record's run row and the dict all give the same settings."""
    from harness.engine.parameters import settings
    from harness.store import db

    made = settings(values)
    assert Settings.from_dict(made.as_dict()) == made
    row = db.run_row(1, made, 0, None)
    assert set(made.as_dict()) - set(row) == {"cluster"}   # a record keeps no scheduler
    assert db.settings_of(row) == made


def test_an_older_record_without_a_horizon_reads_as_the_levinson_rule():
    from harness.store import db

    row = db.run_row(1, Settings(), 0, None)
    del row["horizon"], row["stop_prob"]
    assert db.settings_of(row).length == GameLength()


def test_the_memory_limit_has_one_default():
    from harness.engine.parameters import BY_NAME
    from harness.isolation import limits

    assert Isolation().memory_limit == limits.DEFAULT_MEMORY == limits.Limits().memory
    assert BY_NAME["memory_limit"].default * limits.MIB == limits.DEFAULT_MEMORY


def test_every_option_of_a_declared_parameter_has_its_declared_bounds():
    """--seed, --jobs, --isolation, --timeout ... wherever a command takes them (experiment
    and train too), and --replicates wherever it is taken, are bounded by one declaration."""
    from harness.cli.commands.options import click_type
    from harness.engine.parameters import BY_NAME, REPLICATES

    seen = set()
    for name, command in _commands().items():
        for param in getattr(command, "params", []):
            if not isinstance(param, click.Option):
                continue
            if param.name in BY_NAME and not BY_NAME[param.name].flag:
                assert param.type is click_type(BY_NAME[param.name].type), (name, param.name)
                seen.add(param.name)
            if param.name == "replicates":
                assert param.type is click_type(REPLICATES), name
    assert {"seed", "jobs", "isolation", "timeout", "memory_limit"} <= seen


def test_an_experiment_file_holds_a_seed_and_replicates_within_the_options_bounds(tmp_path):
    import json

    from harness.core.errors import HarnessError
    from harness.engine.parameters import REPLICATES, SEED
    from harness.run.experiment import plan

    minimal = json.loads((AGENTS / "experiments" / "minimal.json").read_text())
    for field, value in (("seed", SEED.high), ("replicates", REPLICATES.high)):
        path = tmp_path / "e.json"
        path.write_text(json.dumps(dict(minimal, **{field: value})), encoding="utf-8")
        assert getattr(plan.load(path, "none", {"timeout": 30}), field) == value
    for field, value in (("seed", SEED.high + 1), ("seed", -1), ("replicates", 0),
                         ("replicates", REPLICATES.high + 1), ("seed", True)):
        path.write_text(json.dumps(dict(minimal, **{field: value})), encoding="utf-8")
        with pytest.raises(HarnessError, match=f"{field} must be a whole number from"):
            plan.load(path, "none", {"timeout": 30})


@pytest.mark.parametrize("words", [
    ["experiment", "E.json", "--seed", str(2 ** 63)],
    ["experiment", "E.json", "--jobs", "1025"],
    ["train", "E.json", "--out", "M.json", "--seed", str(2 ** 63)],
    ["train", "E.json", "--out", "M.json", "--isolation", "docker"],
    ["tournament", "--replicates", "10001"],
])
def test_experiment_and_train_refuse_what_tournament_refuses(words):
    """One line, exit 2, before any file is read: the bounds are the declared ones."""
    status, out, err = run_cli(*words)
    assert status == 2 and out == ""
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and words[-2] in err


def _read(read, value):
    from harness.engine.parameters import BadValue

    try:
        return "ok", read(value)
    except (BadValue, click.BadParameter):
        # refused alike; the words are not compared: click's are a third party's wording,
        # which may change with any release (what ours say is pinned by the CLI tests)
        return "bad", None
    except (TypeError, AttributeError) as error:
        return "not a value", type(error).__name__


@given(st.sampled_from(TABLE),
       st.one_of(st.text(max_size=12), st.integers().map(str), st.floats().map(str),
                 st.sampled_from(["1", " 7 ", "sandbox", "none", "yes", "Off", "nan",
                                  "-1", "1e3", "2.5", "uniform", "defect"])))
def test_a_declared_parameter_reads_a_word_as_its_option_does(parameter, value):
    """The plain type (for a file and the API) and the click type built from it (for the
    command line, which reads words) take the same words to the same value and refuse the
    same ones: one reading of each parameter, whoever gives it."""
    from harness.cli.commands.options import click_type

    plain = _read(parameter.type.convert, value)
    given_here = _read(lambda v: click_type(parameter.type).convert(v, None, None), value)
    assert plain == given_here


def test_a_flag_takes_what_click_bool_took():
    """The API's keyword (harness.monitor(..., disqualify_broken=1)) reads as it did when
    click.BOOL read it: a bool, 0 or 1, or one of its words."""
    from harness.engine.parameters import BadValue, Flag

    assert [Flag().convert(v) for v in (True, 1, 0, "yes", " Off ")] == [
        True, True, False, True, False]
    for bad in (2, -1, 0.5, None, "maybe"):
        with pytest.raises(BadValue):
            Flag().convert(bad)
