"""The Q-table agent: trained with fixed seeds it defects against `cooperate` and beats an
untrained one against its training mix; its model is plain JSON, read with checks; it
plays as `qtable:MODEL.json` in every isolation mode; other types make the tool say
"retrain"."""
import itertools
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from harness.agents.qtable import Model, load_model, save_model
from harness.agents.specs import builtin_spec, resolve
from harness.agents.strategy_keys import strategy_for
from harness.core.errors import HarnessError
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle
from harness.run.experiment.plan import load
from harness.run.qlearning import Training, train

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

MIX = AGENTS / "training" / "mix.json"
OTHER = AGENTS / "training" / "other.json"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    status, out, err = run_cli("train", MIX, "--out", folder / "q.json", "--isolation", "none")
    assert status == 0, err
    untrained = folder / "untrained.json"
    save_model(Model.untrained(1), untrained)
    return folder / "q.json", untrained


def score_against(model, opponent, mode="none", games=10):
    condition = load(MIX).conditions[0]
    [agent] = resolve([f"qtable:{model}"])
    me = open_handle(agent, Isolation(mode, 30.0))   # never late on a busy machine
    other = open_handle(builtin_spec(opponent), Isolation("none"))
    try:
        records = [play_game(me, other, 20, seed, condition.settings.game)
                   for seed in range(games)]
    finally:
        me.close()
    return sum(r.score[0] for r in records), "".join(m for r in records for m in r.intended_a)


def test_after_training_it_defects_against_cooperate(trained):
    model, untrained = trained
    _score, moves = score_against(model, "cooperate")
    assert set(moves) == {"D"}
    assert set(score_against(untrained, "cooperate")[1]) == {"C"}


def test_it_beats_an_untrained_one_against_its_training_mix(trained):
    model, untrained = trained
    mix = ("cooperate", "titfortat", "random")
    assert sum(score_against(model, o)[0] for o in mix) > \
        sum(score_against(untrained, o)[0] for o in mix)


def test_the_model_is_plain_json_with_the_types_fingerprint(trained):
    content = json.loads(trained[0].read_text())
    assert content["format"] == "pdharness-qtable" and content["memory"] == 1
    assert content["version"] == 2
    assert content["types"] == ["coop", "tft", "rand"] and len(content["fingerprint"]) == 64
    assert [len(table) for table in content["q"]] == [5, 5, 5]      # one Q-table per type
    assert [len(table) for table in content["replies"]] == [5, 5, 5]
    assert all(isinstance(n, int) for table in content["replies"] for pair in table
               for n in pair)


def test_a_version_1_model_still_plays_its_one_table(tmp_path):
    """Models written before per-type learning (one Q-table for the whole mix) keep playing."""
    path = tmp_path / "v1.json"
    path.write_text(json.dumps({"format": "pdharness-qtable", "version": 1, "memory": 1,
                                "fingerprint": "", "types": ["a", "b"],
                                "q": [[1, 0], [0, 1], [1, 0], [0, 1], [1, 0]]}))
    model = load_model(path)
    assert model.types == ["a+b"] and model.greedy(0) == "CDCDC"
    _score, moves = score_against(path, "cooperate", games=1)
    assert moves[0] == "C" and set(moves[3:]) == {"D"}   # CC -> D, then DC -> D


def test_the_same_seed_trains_the_same_model_in_any_isolation_mode():
    condition = load(MIX, "none").conditions[0]
    short = Training(memory=2, games=60, seed=4)
    in_monitor = train(condition.types, condition.settings, short)
    in_processes = train(condition.types, load(MIX, "process").conditions[0].settings, short)
    assert in_monitor.q == in_processes.q and in_monitor.replies == in_processes.replies
    assert train(condition.types, condition.settings, Training(memory=2, games=60, seed=5)).q \
        != in_monitor.q


def test_it_plays_the_same_in_a_process_and_in_the_sandbox(trained, bwrap):
    model, _ = trained
    expected = score_against(model, "titfortat", games=3)
    assert score_against(model, "titfortat", "process", games=3) == expected
    assert score_against(model, "titfortat", "sandbox", games=3) == expected


def test_copies_of_its_training_types_need_no_retraining_other_types_do(trained, tmp_path):
    model, _ = trained
    population = tmp_path / "pop.json"
    types = json.loads(MIX.read_text())["types"]
    types = [dict(t, count=3) for t in types]   # more copies: the same types
    population.write_text(json.dumps({"types": types + [
        {"id": "q", "agent": f"qtable:{model}", "count": 2}]}))
    status, out, err = run_cli("tournament", "--population", population, "--isolation",
                               "none", "--seed", "1", "--length", "5", "6", "--format", "json")
    assert status == 0, err
    assert "retrain" not in err
    assert {"q#1", "q#2"} <= {a["name"] for a in json.loads(out)["agents"]}
    status, out, err = run_cli("tournament", f"qtable:{model}", "cooperate", "grudger",
                               "--isolation", "none", "--seed", "1", "--length", "5", "6")
    assert status == 0 and "retrain" in err and str(model) in err


def test_train_refuses_bad_training_values_in_one_line(tmp_path):
    status, out, err = run_cli("train", OTHER, "--out", tmp_path / "q.json", "--games", "0",
                               "--isolation", "none")
    assert status == 2 and err.count("\n") == 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dict(json.loads(OTHER.read_text()), training={"gamma": 2})))
    status, out, err = run_cli("train", bad, "--out", tmp_path / "q.json", "--isolation", "none")
    assert status == 2 and "gamma" in err and err.count("\n") == 1


@pytest.mark.parametrize("content, words", [
    ({"format": "pdharness-qtable", "version": 1, "memory": 1, "q": [[0, 0]] * 4}, "5 pairs"),
    ({"format": "pdharness-qtable", "version": 3, "memory": 1, "q": []}, "version"),
    ({"format": "pdharness-qtable", "version": 2, "memory": 1, "types": ["a"],
      "q": [[[0, 0]] * 5], "replies": [[[0, 0]] * 4]}, "5 pairs"),
    ({"format": "pdharness-qtable", "version": 2, "memory": 1, "types": ["a"],
      "q": [[[0, 0]] * 5], "replies": [[[0, 0.5]] * 5]}, "counts"),
    ({"format": "pdharness-qtable", "version": 2, "memory": 1, "types": ["a", "b"],
      "q": [[[0, 0]] * 5], "replies": [[[0, 0]] * 5]}, "one table per type"),
    ({"format": "pdharness-qtable", "version": 2, "memory": 5, "types": ["a"] * 40,
      "q": [], "replies": []}, "types"),
    ({"format": "pickle"}, "format"),
    ({"format": "pdharness-qtable", "version": 1, "memory": 9, "q": []}, "memory"),
    ({"format": "pdharness-qtable", "version": 1, "memory": 1,
      "q": [[0, 0]] * 4 + [[0, "x"]]}, "finite"),
])
def test_a_bad_model_is_one_clear_line(tmp_path, content, words):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(content))
    with pytest.raises(HarnessError, match=words):
        resolve([f"qtable:{path}"])


PAIR = st.lists(st.integers(-2, 3) | st.floats(), min_size=2, max_size=2)
TABLE = st.lists(PAIR, min_size=4, max_size=6)


@settings(max_examples=200, deadline=None)
@given(version=st.sampled_from([1, 2]), content=st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | TABLE,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(
        st.sampled_from(["format", "version", "memory", "q", "replies", "fingerprint",
                         "types", "x"]), inner, max_size=6), max_leaves=30))
def test_any_json_is_a_model_or_one_clear_line(tmp_path_factory, version, content):
    path = tmp_path_factory.getbasetemp() / "any-model.json"
    path.write_text(json.dumps(dict(content, format="pdharness-qtable", version=version)
                               if isinstance(content, dict) else content))
    try:
        model = load_model(path)
    except HarnessError as error:
        assert "\n" not in str(error)
    else:   # what it plays is its key, which the built-in host rebuilds
        assert strategy_for(model.key()).strategy(random.Random(1), 3).answer() in \
            {"".join(m) for m in itertools.product("CD", repeat=3)}


def test_an_experiment_says_once_that_a_model_needs_retraining(trained, tmp_path):
    model, _ = trained
    experiment = tmp_path / "exp.json"
    experiment.write_text(json.dumps({
        "types": [{"id": "q", "agent": f"qtable:{model}", "count": 2},
                  {"id": "grim", "agent": "grudger", "count": 2}],
        "replicates": 2, "parameters": {"length": [3, 4]},
        "conditions": [{"name": "a"}, {"name": "b", "flip": [0.0, 0.0]}]}))
    status, out, err = run_cli("experiment", experiment, "--seed", "1", "--isolation", "none")
    assert status == 0, err
    assert err.count("retrain") == 1 and str(model) in err
