"""Populations from a file (`tournament --population FILE`): types x counts, copies named
type#1, type#2, ...; JSON and TOML alike; agent files of every language; every isolation
mode; one clear line for a bad file (a property over any JSON)."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from harness.agents.population import population_specs, population_types
from harness.core.errors import HarnessError

from conftest import AGENTS, ROOT, run_cli

EXAMPLES = ROOT / "examples"
COURSE = AGENTS / "populations" / "course.json"
FAST = ("--seed", "11", "--length", "3", "6", "--max-rounds", "2", "--timeout", "30")


def test_four_types_in_copies_are_named_type_number():
    specs = population_specs(EXAMPLES / "population.json")
    assert [s.name for s in specs] == ["tft#1", "tft#2", "tft#3", "m1#1", "m1#2", "grim#1",
                                       "grim#2", "alld#1", "alld#2"]
    assert {s.source for s in specs} == {"titfortat", "memory:0110", "grudger", "defect"}


def test_toml_mirrors_json():
    assert population_specs(EXAMPLES / "population.toml") == \
        population_specs(EXAMPLES / "population.json")


@pytest.mark.slow  # measured: seconds of CPU
def test_the_tournament_plays_the_copies_alike_in_every_mode():
    results = []
    for mode in ("none", "process"):
        status, out, err = run_cli("tournament", "--population", EXAMPLES / "population.toml",
                                   "--isolation", mode, "--format", "json", *FAST)
        assert status == 0, err
        results.append(json.loads(out))
    assert results[0]["standings"] == results[1]["standings"]
    assert {a["name"] for a in results[0]["agents"]} >= {"tft#3", "alld#2"}


def test_agent_files_of_every_language_as_types(sbcl, bwrap):
    status, out, err = run_cli("tournament", "--population", COURSE, "--format", "json", *FAST)
    assert status == 0, err
    result = json.loads(out)
    assert {a["name"]: a["status"] for a in result["agents"]} == {
        name: "ok" for name in ("khos#1", "khos#2", "garcia#1", "garcia#2", "brown#1",
                                "brown#2", "tft#1", "tft#2", "wsls#1")}
    assert all(a["source"].endswith((".py", ".hy", ".lisp")) for a in result["agents"]
               if a["name"].startswith(("khos", "garcia", "brown")))


def test_population_and_agents_together_and_recorded(tmp_path):
    from harness.run.tournament_session import recorded_specs
    from harness.store.reader import Record

    db = tmp_path / "run.sqlite"
    status, out, err = run_cli("tournament", "pavlov", "--population",
                               EXAMPLES / "population.json", "--isolation", "none",
                               "--db", db, *FAST)
    assert status == 0, err
    with Record(db) as record:
        names = [spec.name for spec in recorded_specs(record)]
        assert recorded_specs(record) == population_specs(EXAMPLES / "population.json") + [
            spec for spec in recorded_specs(record) if spec.name == "pavlov"]
    assert names[-1] == "pavlov"


BAD = [
    ({}, "\"types\""),
    ({"types": []}, "\"types\""),
    ({"types": [{"id": "a", "agent": "titfortat"}]}, "at least 2"),
    ({"types": [{"id": "a", "agent": "titfortat", "count": 0}]}, "count"),
    ({"types": [{"id": "a", "agent": "titfortat", "count": 2.5}]}, "count"),
    ({"types": [{"id": "a", "agent": "titfortat", "count": True}]}, "count"),
    ({"types": [{"id": "a#1", "agent": "titfortat", "count": 2}]}, "id must"),
    ({"types": [{"agent": "titfortat", "count": 2}]}, "id must"),
    ({"types": [{"id": "a", "agent": "titfortat", "count": 2},
                {"id": "A", "agent": "defect"}]}, "two types"),
    ({"types": [{"id": "a", "agent": "nosuchagent", "count": 2}]}, "unknown agent"),
    ({"types": [{"id": "a", "agent": "memory:012", "count": 2}]}, "only 0"),
    ({"types": [{"id": "a", "agent": "titfortat", "count": 2, "colour": 1}]}, "unknown field"),
    ({"types": [{"id": "a", "agent": "titfortat", "count": 2, "opening": "D"}]}, "opening"),
    ({"types": [{"id": "a", "agent": "qtable:missing.json", "count": 2}]}, "cannot read"),
]


@pytest.mark.parametrize("content, words", BAD)
def test_a_bad_population_is_one_clear_line(tmp_path, content, words):
    path = tmp_path / "pop.json"
    path.write_text(json.dumps(content))
    with pytest.raises(HarnessError, match=words) as caught:
        population_specs(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


@pytest.mark.parametrize("text, words", [("{", "not valid JSON"), ("[1]", "object"),
                                         ("\xff", "not valid JSON")])
def test_an_unreadable_population_file_is_one_clear_line(tmp_path, text, words):
    path = tmp_path / "pop.json"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(HarnessError, match=words):
        population_specs(path)


def test_bad_toml_is_one_clear_line_on_the_command_line(tmp_path):
    path = tmp_path / "pop.toml"
    path.write_text("[[types]\nid = 'a'\n")
    status, out, err = run_cli("tournament", "--population", path)
    assert status == 2 and err.count("\n") == 1 and "not valid TOML" in err


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2000) | st.floats(allow_nan=True)
    | st.text(max_size=12) | st.sampled_from(["titfortat", "memory:0110", "tft", "count"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["id", "agent", "count", "opening", "x"]), inner,
                      max_size=5),
    max_leaves=20)


@pytest.mark.slow  # measured: seconds of CPU
@settings(max_examples=300, deadline=None)
@given(types=json_values)
def test_any_content_is_a_population_or_one_clear_line(tmp_path_factory, types):
    base = tmp_path_factory.getbasetemp()
    try:
        population_types({"types": types}, base, "pop.json")
    except HarnessError as error:
        assert "\n" not in str(error)
