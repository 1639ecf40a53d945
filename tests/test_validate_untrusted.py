"""Untrusted inputs (tests/agents/untrusted/readers, .../rosters): each gets a verdict, or a
one-line error, for itself alone; a file SBCL plays validates and one it refuses does not;
no code of a submission's (or of a library it names) runs while it is read."""
import json
import os
import subprocess
import sys

import pytest

from conftest import AGENTS, ROOT, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

FILES = AGENTS / "untrusted" / "readers"
ROSTERS = AGENTS / "untrusted" / "rosters"

# file -> the codes of its verdict (exactly), and a warning it must carry, if any
EXPECTED = {
    "DeepSum.py": (["load-error"], "not read before playing"),   # CPython cannot compile it
    "SpacedTeam.py": ([], None),
    "ComplexHuge.lisp": ([], None),
    "HugeInteger.lisp": ([], None),
    "FeatureHidden.lisp": (["helper-not-prefixed"], None),
    "FeatureUnknown.lisp": (["syntax-error"], None),
    "CommentLatin.lisp": ([], "is not UTF-8"),
    "LatinString.lisp": (["load-error"], "is not UTF-8"),
}


def test_every_untrusted_file_gets_its_own_verdict(sbcl):
    status, out, err = run_cli("validate", "--isolation", "process", "--format", "json",
                               *(FILES / name for name in EXPECTED))
    assert status == 1, err
    verdicts = {os.path.basename(v["path"]): v for v in json.loads(out)}
    for name, (codes, warning) in EXPECTED.items():
        verdict = verdicts[name]
        assert [p["code"] for p in verdict["problems"]] == codes, (name, verdict)
        if warning:
            assert any(warning in w for w in verdict["warnings"]), (name, verdict)
    hidden = verdicts["FeatureHidden.lisp"]["problems"][0]["message"]
    assert "defvar *moves*" in hidden and "defun helper" in hidden


def test_the_tournament_agrees_with_validate_on_what_sbcl_loads(sbcl):
    agents = ["ComplexHuge.lisp", "HugeInteger.lisp", "CommentLatin.lisp", "LatinString.lisp"]
    status, out, err = run_cli("tournament", *(FILES / name for name in agents), "titfortat",
                               "--isolation", "process", "--seed", "3", "--max-rounds", "1",
                               "--format", "json")
    assert status == 0, err
    statuses = {a["name"]: a["status"] for a in json.loads(out)["agents"]}
    assert statuses == {"ComplexHuge": "ok", "HugeInteger": "ok", "CommentLatin": "ok",
                        "LatinString": "disqualified", "titfortat": "ok"}   # does not load


def test_reading_a_hy_file_runs_no_reader_macro_of_a_library_it_names():
    """#%(+ %3000000 1) would make three million symbols if hyrule's macro ran: the static
    read keeps the form as data and never imports hyrule."""
    script = ("import sys; from pathlib import Path;"
              "from harness.validation.submission import read_submission;"
              f"v = read_submission(Path({str(FILES / 'MacroPercent.hy')!r}));"
              "print(v.agent, [p.code for p in v.problems], 'hyrule' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.stdout.split() == ["MacroPercent", "[]", "False"], done.stderr


def test_a_fifo_named_like_an_agent_is_a_load_error_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "AdamsBaker.py")
    status, out, err = run_cli("validate", "--isolation", "process", "--format", "json",
                               tmp_path, timeout=120)
    assert status == 1, err
    [verdict] = json.loads(out)
    assert [p["code"] for p in verdict["problems"]] == ["load-error"]
    assert "regular file" in verdict["problems"][0]["message"]


def test_a_roster_with_classic_mac_line_endings_reads_as_a_spreadsheet_wrote_it():
    from harness.validation.roster import Roster

    roster = Roster.read(ROSTERS / "mac_line_endings.csv")
    assert [team.members for team in roster.teams] == [("Adams", "Baker"), ("Cole",)]


@pytest.mark.parametrize("name, said", [("binary.csv", "binary data"),
                                        ("huge_cell.csv", "not readable as CSV")])
def test_a_roster_that_is_not_csv_is_one_line_and_exit_2(name, said):
    status, out, err = run_cli("validate", "--roster", ROSTERS / name, "--isolation", "none",
                               AGENTS / "validate" / "names")
    assert status == 2 and said in err and len(err.strip().splitlines()) == 1, err
    assert "internal error" not in err


def test_a_huge_number_in_the_monitor_form_is_a_usage_error():
    for number in ("9" * 5000, "1" + "0" * 400, "#c(" + "9" * 400 + " 1)"):
        status, _, err = run_cli("monitor", f"(monitor '(.25 .1) '(10 {number}) '(#'random))")
        assert status == 2 and "gameLength" in err and len(err.strip().splitlines()) == 1
