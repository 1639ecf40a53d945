"""`pdharness validate`: a real file for every problem code in every language, and for every
warning, validated through the real console command, handles and isolation."""
import json

import pytest

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

FILES = AGENTS / "validate"
# the games quoted below are seed 5's; 1.5 s a call: a fresh SBCL game's first call (its
# fasl loaded anew) took past 0.5 s beside another full suite (load 30+)
OPTIONS = ("--timeout", "1.5", "--seed", "5")

# path under tests/agents/validate -> the codes its verdict must have (exactly)
EXPECTED = {
    "py/khosmood_levinson.py": ["name-format"],
    "py/LevinsonKhosmood.py": ["name-order"],
    "py/AdamsBaker.py": ["file-name-mismatch"],
    "py/CarterDavis.py": ["no-agent"],
    "py/EvansFord.py": ["several-agents"],
    "py/HillIrwin.py": ["syntax-error"],
    "py/JonesKing.py": ["load-error"],
    "py/LeeMoore.py": ["bad-answer"],
    "py/NashOwen.py": ["timeout"],
    "py/ParkQuinn.py": ["exception"],
    "hy/abel_baum.hy": ["name-format"],
    "hy/ZhangAdams.hy": ["name-order"],
    "hy/BaumCole.hy": ["file-name-mismatch"],
    "hy/YoungZhang.hy": ["no-agent"],
    "hy/CraneDyer.hy": ["several-agents"],
    "hy/VanceWest.hy": ["syntax-error"],
    "hy/DyerEllis.hy": ["load-error"],
    "hy/WestYoung.hy": ["bad-answer"],
    "hy/EllisFinch.hy": ["timeout"],
    "hy/FinchGrant.hy": ["exception"],
    "lisp/chen_diaz.lisp": ["name-format"],
    "lisp/PriceOrtiz.lisp": ["name-order"],
    "lisp/GrantHale.lisp": ["file-name-mismatch"],
    "lisp/DunnEast.lisp": ["no-agent"],
    "lisp/HaleIbsen.lisp": ["several-agents"],
    "lisp/AllenBell.lisp": ["helper-not-prefixed"],
    "lisp/BellCole.lisp": ["syntax-error"],
    "lisp/ColeDunn.lisp": ["load-error"],
    "lisp/IbsenJuarez.lisp": ["bad-answer"],
    "lisp/JuarezKhan.lisp": ["timeout"],
    "lisp/KhanLowe.lisp": ["exception"],
    "dup/a/TateUpton.py": ["duplicate-name"],
    "dup/b/TateUpton.hy": ["duplicate-name"],
    "dup/c/TateUpton.lisp": ["duplicate-name"],
    "dup/Pavlov.py": ["duplicate-name"],          # a team of one, named like a built-in
    "names/MunozSmithJones.py": ["name-order"],   # without a roster, Smith-Jones is two names
    "warnings/ReedShaw.py": [],
    "warnings/RossSato.hy": [],
    "warnings/EastFox.lisp": [],
    "warnings/McDonaldSmith.py": [],
    "warnings/OrrPage.py": [],
}
# path -> words its warning must hold
WARNINGS = {
    "warnings/ReedShaw.py": "answer ['c', 'c', 'd'] spells 'c', 'd' non-canonically",
    "warnings/RossSato.hy": 'answer ["c" "c" "d"] spells "c", "d" non-canonically',
    "warnings/EastFox.lisp": '("C" "C" "D") spelled non-canonically',
    "warnings/McDonaldSmith.py": "cannot tell for sure where the last names in McDonaldSmith",
    "warnings/OrrPage.py": "names its team Orr, Paige, which does not spell OrrPage",
}


def validate(*paths, options=OPTIONS):
    status, out, err = run_cli("validate", *paths, "--format", "json", *options)
    assert status in (0, 1), err
    return status, json.loads(out)


def codes(entry):
    return sorted(p["code"] for p in entry["problems"])


def by_path(entries):
    return {str(e["path"]).split("validate/", 1)[1]: e for e in entries}


@pytest.fixture(scope="module")
def verdicts():
    """Every example validated in one run, in the default isolation (the sandbox)."""
    status, entries = validate("-r", FILES)
    assert status == 1
    return by_path(entries)


def test_every_example_is_validated(verdicts):
    assert set(verdicts) == set(EXPECTED)


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_each_problem_code_from_a_real_file(path, verdicts, request):
    if path.endswith(".lisp"):
        request.getfixturevalue("sbcl")
    entry = verdicts[path]
    assert codes(entry) == EXPECTED[path], entry
    assert entry["ok"] == (not EXPECTED[path])
    assert all(p["message"] for p in entry["problems"])
    assert entry["language"] == {"py": "python", "hy": "hy", "lisp": "lisp"}[path.split(".")[-1]]


@pytest.mark.parametrize("path", sorted(WARNINGS))
def test_each_warning_from_a_real_file(path, verdicts, request):
    if path.endswith(".lisp"):
        request.getfixturevalue("sbcl")
    entry = verdicts[path]
    assert entry["ok"] and entry["problems"] == []
    assert any(WARNINGS[path] in warning for warning in entry["warnings"]), entry


def test_every_code_of_the_contract_has_an_example_in_every_language():
    from harness.validation.problems import CODES

    for language, folder in (("python", "py"), ("hy", "hy"), ("lisp", "lisp")):
        found = {code for path, found in EXPECTED.items() if path.startswith(folder + "/")
                 for code in found}
        expected = set(CODES) - {"duplicate-name", "not-on-roster"}
        if language != "lisp":
            expected.discard("helper-not-prefixed")   # one Lisp image only
        assert found == expected, language
    assert {e[0] for p, e in EXPECTED.items() if p.startswith("dup/")} == {"duplicate-name"}


def test_problems_quote_the_call_and_the_answer(verdicts):
    python = verdicts["py/LeeMoore.py"]["problems"][0]["message"]
    assert "call 2 against random, LeeMoore([('C', 'D'), ('C', 'C'), ('C', 'C')], [6, 11])" \
        in python
    assert "'X' is not a move (C or D) in ['C', 'X', 'D']" in python
    hy = verdicts["hy/WestYoung.hy"]["problems"][0]["message"]
    assert "(WestYoung [] [0 0])" in hy and ":X is not a move" in hy


def test_lisp_problems_quote_the_call_in_lisp(verdicts, sbcl):
    bad = verdicts["lisp/IbsenJuarez.lisp"]["problems"][0]["message"]
    assert "(IbsenJuarez '((C D) (C C) (C C)) '(6 11))" in bad and "in (C X D)" in bad
    error = verdicts["lisp/KhanLowe.lisp"]["problems"][0]["message"]
    assert "KhanLowe gave up after 9 moves" in error
    assert "'(...5 earlier pairs... (C C) (C C) (C C) (C C))" in error


def test_load_and_syntax_errors_name_file_and_line(verdicts, sbcl):
    for path, needle in (("py/HillIrwin.py", "HillIrwin.py:1: expected ':'"),
                         ("hy/VanceWest.hy", "line 2"),
                         ("lisp/BellCole.lisp", "BellCole.lisp:1"),
                         ("py/JonesKing.py", "JonesKing.py:1: ZeroDivisionError"),
                         ("hy/DyerEllis.hy", "DyerEllis.hy:1: ZeroDivisionError"),
                         ("lisp/ColeDunn.lisp", "ColeDunn.lisp:1: undefined function")):
        assert needle in verdicts[path]["problems"][0]["message"], path


def test_exceptions_and_timeouts_say_what_happened(verdicts, sbcl):
    # the agent's own frame: file:line and the source line, in Python and Hy alike
    assert ("IndexError: list index out of range, at ParkQuinn.py:3: "
            "return [hist[-1][1]] * 3") in verdicts["py/ParkQuinn.py"]["problems"][0]["message"]
    assert ("IndexError: list index out of range, at FinchGrant.hy:3: "
            "(* [(get (get hist -1) 1)] 3))") in verdicts["hy/FinchGrant.hy"]["problems"][0][
                "message"]
    for path in ("py/NashOwen.py", "hy/EllisFinch.hy", "lisp/JuarezKhan.lisp"):
        message = verdicts[path]["problems"][0]["message"]
        assert message.startswith("call 1 against random") and "no answer within" in message


def test_lisp_helpers_must_carry_the_agents_name(verdicts, sbcl):
    message = verdicts["lisp/AllenBell.lisp"]["problems"][0]["message"]
    for offender in ("defparameter *moves* (line 2)", "defun last-move (line 4)",
                     "defmacro with-AllenBell (line 8)", "defstruct state (line 10)",
                     "defun count-call (inside the form at line 12)",
                     "defclass accessor seen (line 15)"):
        assert offender in message
    for fine in ("AllenBell-first", "AllenBell-memory", "print-object", "not-a-definition",
                 "nor-this", "feature-excluded"):
        assert fine not in message


def test_mismatched_names_say_which_name_to_use(verdicts, sbcl):
    assert "name the file AdamsBrown.py" in verdicts["py/AdamsBaker.py"]["problems"][0][
        "message"]
    assert verdicts["py/AdamsBaker.py"]["agent"] == "AdamsBrown"
    assert "name the file GrantHall.lisp" in verdicts["lisp/GrantHale.lisp"]["problems"][0][
        "message"]
    assert "perhaps KhosmoodLevinson" in verdicts["py/khosmood_levinson.py"]["problems"][0][
        "message"]
    assert "should be KhosmoodLevinson" in verdicts["py/LevinsonKhosmood.py"]["problems"][0][
        "message"]


def test_duplicates_name_the_other_files(verdicts):
    message = verdicts["dup/a/TateUpton.py"]["problems"][0]["message"]
    assert "dup/b/TateUpton.hy" in message and "dup/c/TateUpton.lisp" in message
    assert "name of a built-in agent (pavlov)" in verdicts["dup/Pavlov.py"]["problems"][0][
        "message"]


def test_three_files_of_one_agent_are_listed_as_three(tmp_path):
    """A student's .py, .hy and .lisp of one agent: each path as given, in a plain list."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "AbeBo.py").write_text('def AbeBo(hist, score):\n    return "CCC"\n')
    (tmp_path / "AbeBo.hy").write_text("(defn AbeBo [hist score] ['C 'C 'C])\n")
    (tmp_path / "AbeBo.lisp").write_text("(defun AbeBo (hist score) '(C C C))\n")
    status, out, _ = run_cli("validate", "sub/AbeBo.py", "AbeBo.hy", "AbeBo.lisp",
                             "--format", "json", "--isolation", "process", cwd=tmp_path)
    assert status == 1
    [problem] = [p for p in json.loads(out)[0]["problems"] if p["code"] == "duplicate-name"]
    assert problem["message"] == (
        "sub/AbeBo.py, AbeBo.hy and AbeBo.lisp all define the agent AbeBo")


def test_a_byte_order_mark_is_pythons_encoding_mark_and_explained_elsewhere(tmp_path):
    """Windows editors may save UTF-8 with a BOM: Python runs such a file, so it passes;
    Hy and SBCL read the mark as a character, so the file fails, and a warning says why."""
    bom = b"\xef\xbb\xbf"
    (tmp_path / "AbeTo.py").write_bytes(bom + b'def AbeTo(hist, score):\r\n    return ["C"] * 3\r\n')
    (tmp_path / "AbeUo.hy").write_bytes(bom + b"(defn AbeUo [hist score] ['C 'C 'C])\r\n")
    (tmp_path / "AbeVo.lisp").write_bytes(bom + b"(defun AbeVo (hist score) '(C C C))\r\n")
    status, out, err = run_cli("validate", "AbeTo.py", "AbeUo.hy", "AbeVo.lisp", "--format",
                               "json", "--isolation", "process", cwd=tmp_path)
    assert status == 1, err
    verdicts = {v["path"]: v for v in json.loads(out)}
    assert verdicts["AbeTo.py"]["ok"] and verdicts["AbeTo.py"]["warnings"] == []
    for path in ("AbeUo.hy", "AbeVo.lisp"):
        assert not verdicts[path]["ok"]
        assert any("starts with a byte-order mark (U+FEFF)" in warning
                   and "without BOM" in warning for warning in verdicts[path]["warnings"])


def test_the_json_shape_is_the_contracts(verdicts):
    entry = verdicts["py/LeeMoore.py"]
    assert set(entry) == {"path", "agent", "language", "ok", "problems", "warnings", "seed"}
    assert entry["seed"] == 5
    assert set(entry["problems"][0]) == {"code", "message"}


def test_process_isolation_gives_the_same_verdicts(verdicts, sbcl):
    status, entries = validate("-r", FILES, options=OPTIONS + ("--isolation", "process"))
    assert status == 1
    assert {p: codes(e) for p, e in by_path(entries).items()} == {
        p: codes(e) for p, e in verdicts.items()}


def test_isolation_none_gives_the_same_verdicts_for_agents_that_return(verdicts, sbcl):
    """Inside the monitor a call that never returns cannot be stopped (docs/security.md: trusted code
    only), so the endless loops stay out of this run."""
    paths = [FILES / p for p in EXPECTED if p not in ("py/NashOwen.py", "hy/EllisFinch.hy")]
    status, entries = validate(*paths, options=OPTIONS + ("--isolation", "none"))
    assert status == 1
    assert {p: codes(e) for p, e in by_path(entries).items()} == {
        p: codes(e) for p, e in verdicts.items() if FILES / p in paths}


def test_a_file_named_twice_is_validated_once():
    status, entries = validate(FILES / "warnings" / "ReedShaw.py", FILES / "warnings",
                               FILES / "warnings" / ".." / "warnings" / "ReedShaw.py")
    assert status == 0
    assert sorted(e["agent"] for e in entries) == [
        "EastFox", "McDonaldSmith", "OrrPage", "ReedShaw", "RossSato"]


def test_files_meant_as_agents_under_another_suffix(tmp_path):
    (tmp_path / "KhosmoodLevinson.lsp").write_text("(defun KhosmoodLevinson (h s) '(C C C))")
    (tmp_path / "notes.md").write_text("not a submission")
    status, [entry] = validate(tmp_path)
    assert status == 1 and codes(entry) == ["file-name-mismatch"]
    assert "rename it KhosmoodLevinson.lisp" in entry["problems"][0]["message"]


def test_a_looping_lisp_agent_is_given_up_after_three_timeouts(sbcl):
    """The SBCL host stops an overlong call itself; those count toward giving up too."""
    status, out, err = run_cli("play", FILES / "lisp" / "JuarezKhan.lisp", "defect",
                               "--turns", "5", "--timeout", "0.3", "--format", "json")
    assert status == 0, err
    side = "a" if json.loads(out)["agents"][0] == "JuarezKhan" else "b"
    faults = [turn["faults"][side] for turn in json.loads(out)["turns"]]
    assert all(f is not None for f in faults)
    assert all("not asked" in str(f) for f in faults[3:]) and "not asked" not in str(faults[2])


# -- what validates plays, and what would fault does not validate --------------------------
@pytest.mark.parametrize("path,plays", [
    ("warnings/ReedShaw.py", True), ("warnings/RossSato.hy", True),
    ("warnings/EastFox.lisp", True), ("py/ParkQuinn.py", False), ("hy/WestYoung.hy", False),
    ("lisp/KhanLowe.lisp", False), ("py/JonesKing.py", False)])
def test_validation_agrees_with_the_tournament(path, plays, verdicts, request):
    if path.endswith(".lisp"):
        request.getfixturevalue("sbcl")
    assert verdicts[path]["ok"] == plays
    for seed in (1, 2, 3):
        status, out, err = run_cli("tournament", FILES / path, "random", "defect", "titfortat",
                                   "--seed", seed, "--format", "json", "--isolation",
                                   "process")
        assert status == 0, err
        result = json.loads(out)
        agent = verdicts[path]["agent"]
        [standing] = [s for s in result["standings"] if s["agent"] == agent]
        [status_of] = [a["status"] for a in result["agents"] if a["name"] == agent]
        faulted = sum(standing["faults"].values()) > 0 or status_of != "ok"
        assert faulted == (not plays), (seed, standing, status_of)


# -- command line -------------------------------------------------------------------------
def test_exit_codes_and_the_table():
    status, out, _ = run_cli("validate", FILES / "warnings" / "ReedShaw.py")
    assert status == 0 and out.startswith("ok  ") and "warning: answer" in out
    assert out.strip().endswith("1 of 1 submission passes (1 with warnings).")
    status, out, _ = run_cli("validate", FILES / "py" / "LeeMoore.py", *OPTIONS)
    assert status == 1 and out.startswith("FAIL  ")
    assert "bad-answer: call 2" in out
    assert '  fix: Return exactly 3 moves, each "C" or "D"' in out


def test_an_agent_whose_process_dies_is_not_told_it_raised_an_error(tmp_path):
    agent = tmp_path / "AbeGo.py"
    agent.write_text("import os\n\ndef AbeGo(hist, score):\n    os._exit(3)\n")
    status, out, _ = run_cli("validate", agent, "--isolation", "process", "--seed", "1")
    assert status == 1 and "exception: call 1 against random" in out
    assert "process died" in out
    [fix] = [line for line in out.splitlines() if line.strip().startswith("fix:")]
    assert "died" in fix


@pytest.mark.parametrize("arguments,needle", [
    (["nothing-here.py"], "nothing-here.py: no such file or folder"),
    ([FILES / "rosters"], "no agent files"),
    ([FILES / "warnings", "--roster", "no-roster.csv"], "--roster no-roster.csv: cannot read"),
    ([FILES / "warnings", "--roster", FILES / "warnings" / "ReedShaw.py"],
     "row 1: 'def ReedShaw(hist' is not a last name"),
    ([FILES / "warnings", "--roster", "/dev/null"], "/dev/null: is a character device"),
    ([FILES / "warnings", "--timeout", "-1"], "--timeout"),
    ([FILES / "warnings", "--moves-per-turn", "0"], "--moves-per-turn"),
    ([FILES / "warnings", "--format", "xml"], "--format"),
    ([], "Missing argument"),
])
def test_bad_usage_is_one_line_and_status_2(arguments, needle):
    status, out, err = run_cli("validate", *arguments)
    assert status == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_moves_per_turn_is_checked_as_the_tournament_would():
    status, [entry] = validate(FILES / "warnings" / "ReedShaw.py",
                               options=OPTIONS + ("--moves-per-turn", "1"))
    assert status == 1 and codes(entry) == ["bad-answer"]
    assert "expected 1" in entry["problems"][0]["message"]


def test_the_default_isolation_is_the_sandbox(shared_folder, bwrap):
    """An agent that fails when it can see a file next to it: in the sandbox it sees only
    its own file, so it validates; as a plain process it does not (in a folder of yours:
    /tmp is each game's own, harness/isolation/world.py)."""
    (shared_folder / "marker.txt").write_text("visible")
    agent = shared_folder / "SandSeer.py"
    agent.write_text(
        "import os\n\n\ndef SandSeer(hist, score):\n"
        f"    if os.path.exists({str(shared_folder / 'marker.txt')!r}):\n"
        "        raise RuntimeError('I can see the folder around me')\n"
        "    return ['C', 'C', 'C']\n")
    status, [entry] = validate(agent)
    assert status == 0 and entry["ok"], entry
    status, [entry] = validate(agent, options=OPTIONS + ("--isolation", "process"))
    assert codes(entry) == ["exception"]
    assert "I can see the folder around me" in entry["problems"][0]["message"]
