"""A file an LMS renamed (`JonesSmith (1).py` defining JonesSmith) plays as the agent it
defines in every command, with a warning naming the file to use; a file whose
name is another agent's stays a load error, and two files defining one agent stay the
one-line error. The rule: harness/agents/uploaded_names.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness.agents.lang import LANGUAGES
from harness.agents.uploaded_names import decorated, played_as

from conftest import pdharness as run_console, stop_after_round

FILES = {
    "JonesSmith (1).py": "def JonesSmith(hist, score):\n    return ['D', 'C', 'D']\n\n\n"
                         "def JonesSmithHelper(hist, score):\n    return 1\n",
    "KimLopez-2.hy": "(defn KimLopez [hist score] [\"C\" \"D\" \"C\"])\n",
    "lopezk_1234_5678_BrownChen.lisp": "(defun BrownChen (hist score)\n"
                                       "  (declare (ignore hist score))\n"
                                       "  (list 'D 'D 'C))\n",
}
RENAMED = {"JonesSmith": "JonesSmith (1).py", "KimLopez": "KimLopez-2.hy",
           "BrownChen": "lopezk_1234_5678_BrownChen.lisp"}


def pdharness(*args, cwd=None, status=0):
    done = run_console(*args, cwd=cwd, status=status)
    return done.stdout, done.stderr


@pytest.fixture
def uploads(tmp_path):
    folder = tmp_path / "uploads"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text)
    return folder


def warned(err: str, agent: str) -> bool:
    file = RENAMED[agent]
    return (f"pdharness: warning: {file} defines {agent}: it plays as {agent}" in err
            and f"name the file {agent}{Path(file).suffix}" in err)


@pytest.mark.parametrize("stem, agent, meant", [
    ("JonesSmith (1)", "JonesSmith", True),      # a browser's or LMS's second copy
    ("JonesSmith-1", "JonesSmith", True),        # Canvas's resubmission
    ("JonesSmith_late", "JonesSmith", True),     # marked late
    ("jonesa_1234_5678_JonesSmith", "JonesSmith", True),   # Canvas's bulk download
    ("JonesSmith2", "JonesSmith", True),
    ("JonesSmith.v2", "JonesSmith", True),
    ("JonesSmith", "JonesSmith", False),         # its own name: nothing to do
    ("JonesSmithBest", "JonesSmith", False),     # another agent's name
    ("Misnamed", "SomethingElse", False),
    ("XJonesSmith (1)", "JonesSmith", False),    # inside a longer run of letters
    ("jonessmith (1)", "JonesSmith", False),     # capitals are part of the name
    ("Other (1)", "JonesSmith", False),
])
def test_which_file_names_carry_the_agents(stem, agent, meant):
    assert decorated(stem, agent) is meant


@given(name=st.from_regex(r"[A-Z][a-z]{1,8}[A-Z][a-z]{1,8}", fullmatch=True),
       before=st.from_regex(r"([a-z0-9]{0,6}[ _.-])?", fullmatch=True),
       after=st.from_regex(r"([ _.-]?[(]?[0-9]{1,3}[)]?|[ _-][a-z]{1,6})", fullmatch=True))
def test_any_lms_decoration_around_a_name_carries_it(name, before, after):
    assert decorated(before + name + after, name)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400) | st.text(max_size=400).map(str.encode),
       suffix=st.sampled_from([".py", ".hy", ".lisp"]))
def test_reading_what_an_upload_defines_never_fails(tmp_path, data, suffix):
    """An upload is untrusted: whatever it holds, the name it plays as is a name or None
    (and loading it then says what is wrong)."""
    path = tmp_path / f"JonesSmith (1){suffix}"
    path.write_bytes(data)
    found = played_as(path, next(l for l in LANGUAGES.values() if suffix in l.suffixes))
    assert found is None or found.isalpha()


def test_the_tournament_plays_renamed_uploads_by_the_agent_they_define(sbcl, sandboxed,
                                                                      uploads):
    out, err = pdharness("tournament", uploads, "titfortat", "--seed", "3",
                         "--length", "5", "8", "--format", "json")
    result = json.loads(out)
    agents = {a["name"]: a for a in result["agents"]}
    for agent, file in RENAMED.items():
        assert agents[agent]["status"] == "ok", agents[agent]
        assert agents[agent]["source"] == str(uploads / file)   # the path that played
        assert warned(err, agent)
    assert all(s["faults"] == {"invalid": 0, "exception": 0, "timeout": 0, "crash": 0}
               for s in result["standings"])


def test_play_monitor_validate_and_the_api_too(sbcl, sandboxed, uploads):
    out, err = pdharness("play", uploads / "JonesSmith (1).py", "titfortat", "--turns", "3",
                         "--seed", "2", "--format", "json")
    assert json.loads(out)["agents"][0] == "JonesSmith" and warned(err, "JonesSmith")

    out, err = pdharness("monitor", "(monitor '(.25 .1) '(5 8) '(#'titfortat #'KimLopez "
                         "#'BrownChen))", "--agents", uploads, "--seed", "2")
    assert "KimLopez" in out and "BrownChen" in out and warned(err, "BrownChen")

    out, err = pdharness("validate", uploads / "JonesSmith (1).py",
                         uploads / "KimLopez-2.hy", "--format", "json")
    verdicts = json.loads(out)
    assert [v["agent"] for v in verdicts] == ["JonesSmith", "KimLopez"]
    assert all(v["ok"] for v in verdicts), verdicts
    assert any("name the file JonesSmith.py" in w for w in verdicts[0]["warnings"])

    import harness

    result = harness.monitor((0.25, 0.1), (5, 8), [str(uploads / "JonesSmith (1).py"),
                                                   "titfortat"], seed=2, isolation="none",
                             jobs=1)
    assert {name for name, _ in result} == {"JonesSmith", "titfortat"}
    assert all(e.status == "ok" for e in result.result.entrants)


def test_resume_plays_the_renamed_upload_as_the_run_did(uploads, tmp_path, monkeypatch):
    from harness.agents.specs import resolve
    from harness.core.rules import GameLength
    from harness.engine.tournament import Settings
    from harness.isolation.handles.opening import Isolation
    from harness.run import tournament_session as session

    specs = resolve([str(uploads / "JonesSmith (1).py"), "titfortat", "defect", "random"])
    chosen = Settings(isolation=Isolation("none"), jobs=1, length=GameLength(4, 6))
    whole = session.run(specs, 4, chosen, quiet=True)
    db = tmp_path / "run.sqlite"
    with monkeypatch.context() as patched:
        stop_after_round(patched, 1)
        with pytest.raises(session.RecordInterrupted):
            session.run(specs, 4, chosen, db=db, quiet=True)
    resumed, _note = session.resume(db, Isolation("none"), quiet=True)
    assert resumed.standings == whole.standings
    assert all(e.status == "ok" for e in resumed.entrants)


def test_two_files_of_one_agent_stay_one_line_and_another_name_stays_a_load_error(
        uploads, tmp_path):
    (uploads / "JonesSmith.py").write_text(FILES["JonesSmith (1).py"])
    _out, err = pdharness("tournament", uploads, "--isolation", "none", status=2)
    assert err.strip().splitlines()[-1].startswith("pdharness: error: two agents named "
                                                   "JonesSmith: ")
    other = tmp_path / "other"
    other.mkdir()
    (other / "JonesSmith_late.py").write_text("def Other(hist, score):\n    return 'CCC'\n")
    out, _err = pdharness("tournament", other, "titfortat", "--isolation", "none",
                          "--format", "json")
    agent = json.loads(out)["agents"][0]
    assert agent["name"] == "JonesSmith_late" and agent["status"] == "disqualified"
    assert "name the file Other.py" in agent["message"]
