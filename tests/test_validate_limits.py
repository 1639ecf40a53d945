"""A file that validates plays: `validate` applies every parameter of the
tournament's that shapes an agent's run (parameters.AGENT_RUN), given in the course file
or on the command line. For each such parameter, an agent that plays under the defaults but
faults under another value: the tournament faults it, and validate fails it, under that
value. A new parameter row that shapes an agent's run needs a case here."""
from __future__ import annotations

import json

import pytest

from harness.engine import parameters

from conftest import pdharness as run_console

HEADER = "import random\nimport sys\nimport time\n\n\ndef {name}(hist, score):\n"
PAY = "    pay = {('C', 'C'): 3, ('C', 'D'): 0, ('D', 'C'): 5, ('D', 'D'): 1}\n"
# parameter -> (the course file's line, or options for both commands; the agent's body):
# each body plays under the defaults and raises or answers wrongly under the value
CASES = {
    "flip": ("flip = [0.0, 0.0]",   # it expects noise: its own moves flipped now and then
             "    if len(hist) >= 27 and all(m == 'C' for m, _ in hist):\n"
             "        raise ValueError('no noise')\n    return ['C', 'C', 'C']\n"),
    "decay": ('decay = "fraction-per-move"',   # the noise ends after 3 moves
              "    if len(hist) >= 27 and all(m == 'C' for m, _ in hist[3:]):\n"
              "        raise ValueError('the noise ended')\n    return ['C', 'C', 'C']\n"),
    "moves_per_turn": ("moves-per-turn = 1", "    return ['C', 'C', 'C']\n"),
    "length": ("length = [60, 60]",   # validate's longest game used to be 50 turns
               "    if len(hist) >= 3 * 55:\n        raise ValueError('too long')\n"
               "    return ['C', 'C', 'C']\n"),
    "timeout": ("timeout = 0.3",
                "    if not hist:\n        time.sleep(0.6)\n    return ['C', 'C', 'C']\n"),
    "payoffs": ("payoffs = [6, 4, 1, 0]",   # it checks its score by the default payoffs
                PAY + "    if score[0] != sum(pay[m, t] for m, t in hist):\n"
                "        raise ValueError('another payoff table')\n    return ['C', 'D', 'C']\n"),
    "isolation": (("--isolation", "none"),   # a course file cannot weaken it: the options
                  "    if 'harness.cli' in sys.modules:\n"
                  "        raise RuntimeError('inside the monitor')\n    return ['C', 'C', 'C']\n"),
    # 700 MiB of address space, one page of it touched: a bytearray zeroed every page, so
    # on a loaded machine a call could pass its 1 s under the defaults too
    "memory_limit": ("memory-limit = 512",
                     "    import mmap\n    block = mmap.mmap(-1, 700 << 20)\n"
                     "    block[-1] = 1\n    block.close()\n    return ['C', 'C', 'C']\n"),
    "load_timeout": ("load-timeout = 0.5",   # its top level takes 1.5 s: under 10 s it loads
                     "    return ['C', 'C', 'C']\n\n\ntime.sleep(1.5)\n"),
    "agent_package": ('agent-packages = ["click"]',   # it plays only where click is not given
                      "    try:\n        import click  # noqa: F401\n"
                      "    except ImportError:\n        return ['C', 'C', 'C']\n"
                      "    raise RuntimeError('click is importable')\n"),
    "max_bundle_mib": ("max-bundle-mib = 1",   # a bundle (BUNDLED) holding 2 MiB of data
                       "    return ['C', 'C', 'C']\n"),
}
# the cases whose agent is a bundle, a folder named after it: the bytes of its data file
BUNDLED = {"max_bundle_mib": 2 << 20}


def pdharness(*args, cwd):
    return run_console(*args, cwd=cwd, status=(0, 1))


def test_every_parameter_that_shapes_an_agents_run_has_a_case():
    assert set(CASES) == set(parameters.AGENT_RUN)
    assert all(isinstance(p.plays, bool) for p in parameters.TABLE)


@pytest.mark.slow
@pytest.mark.parametrize("name", parameters.AGENT_RUN)
def test_a_file_that_validates_plays(name, sandboxed, tmp_path):
    given, body = CASES[name]
    agent = "Abe" + name.split("_")[0].title()   # two last names in alphabetical order
    folder = tmp_path / agent if name in BUNDLED else tmp_path
    folder.mkdir(exist_ok=True)
    (folder / f"{agent}.py").write_text(HEADER.format(name=agent) + body)
    if name in BUNDLED:
        (folder / "data.bin").write_bytes(b"x" * BUNDLED[name])
    submission = agent if name in BUNDLED else f"{agent}.py"
    if isinstance(given, tuple):
        (tmp_path / "course.toml").write_text("")
        extra = given
    else:
        (tmp_path / "course.toml").write_text(given + "\n")
        extra = ()
    course = ("--config", "course.toml")

    plain = pdharness("validate", submission, "--seed", "1", "--format", "json",
                      cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout   # under the defaults it plays

    played = pdharness("tournament", *course, submission, "titfortat", *extra, "--seed",
                       "1", "--max-rounds", "1", "--format", "json", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    standing = next(s for s in result["standings"] if s["agent"] == agent)
    [entry] = [a for a in result["agents"] if a["name"] == agent]
    # the tournament faults it, or (a limit on its loading) it does not load there
    assert sum(standing["faults"].values()) > 0 or entry["status"] != "ok", (standing, entry)

    checked = pdharness("validate", *course, submission, *extra, "--seed", "1",
                        "--format", "json", cwd=tmp_path)
    [verdict] = json.loads(checked.stdout)
    assert checked.returncode == 1 and not verdict["ok"], verdict   # and validate says so
