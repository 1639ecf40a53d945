"""Facts that have one home: the time limit is the enforced one (Isolation.timeout), also
where it is recorded and printed; --format choices come from one definition; the command
line, the Python API and the JSON agree on every parameter's default."""
import inspect

import click
from hypothesis import given, strategies as st

from harness.formats import params_dict
from harness.handles.opening import Isolation
from harness.tournament import Settings


@given(st.floats(0.01, 3600))
def test_the_time_limit_recorded_and_printed_is_the_enforced_one(timeout):
    from harness.records import db

    settings = Settings(isolation=Isolation("process", timeout))
    assert params_dict(settings)["timeout"] == timeout
    row = db.run_row(1, settings, 0, None)
    assert row["timeout"] == timeout
    assert db.settings_of(row).isolation.timeout == timeout


def _commands():
    from harness.cli import COMMANDS, cli

    return {name: cli.get_command(None, name) for name in COMMANDS}


def test_every_format_option_offers_one_of_the_declared_lists():
    from harness.commands.options import PLAIN_FORMATS, RESULT_FORMATS

    seen = 0
    for command in _commands().values():
        for param in getattr(command, "params", []):
            if param.name == "format":
                seen += 1
                assert tuple(param.type.choices) in (RESULT_FORMATS, PLAIN_FORMATS)
                assert param.default == param.type.choices[0]
    assert seen >= 5


# option name -> (keyword of harness.api.monitor, the option's value as the API takes it,
# JSON key of "params" and how the JSON writes the option's value); None: not offered there
SHARED = {
    "flip": ("flip_params", None, "flip", list),
    "length": ("game_length", None, "length", list),
    "moves_per_turn": ("moves_per_turn", None, "moves_per_turn", None),
    "decay": ("decay", None, "decay", None),
    "timeout": ("timeout", None, "timeout", None),
    "payoffs": ("payoffs", tuple, "payoffs", lambda v: dict(zip("TRPS", v, strict=True))),
    "on_fault": ("on_fault", None, "default_answer",
                 lambda v: "C" if v == "cooperate" else "D"),
    "isolation": ("isolation", None, "isolation", None),
    "memory_limit": ("memory_limit_mib", None, None, None),
    "max_rounds": ("max_rounds", None, "max_rounds", None),
    "max_faults": ("max_faults", None, "max_faults", None),
    "jobs": ("jobs", None, None, None),
    "disqualify_broken": ("disqualify_broken", None, None, None),
    "horizon": ("horizon", None, None, None),
    "stop_prob": ("stop_prob", None, None, None),
    "seed": ("seed", None, None, None),
}


def test_the_command_line_the_api_and_the_json_share_each_default():
    from harness.api import monitor

    options = {p.name: p for p in _commands()["tournament"].params
               if isinstance(p, click.Option)}
    keywords = inspect.signature(monitor).parameters
    printed = params_dict(Settings())
    for name, (keyword, as_api, key, as_json) in SHARED.items():
        default = options[name].default
        if keywords[keyword].default is not inspect.Parameter.empty:
            assert (as_api or (lambda v: v))(default) == keywords[keyword].default, name
        if key is not None:
            assert (as_json or (lambda v: v))(default) == printed[key], name
    # a default Settings() is what the command line builds from its defaults
    from harness.commands.options import settings

    assert settings({name: option.default for name, option in options.items()}) == Settings()
