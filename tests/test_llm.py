"""Language-model agents (`llm:NAME`), through the real client against
a scripted stand-in server on 127.0.0.1 (a port the OS picks): the parse rule and its
retries, the chat phase, model-call errors and limits, the record of every prompt and
response, and resume never asking again for a recorded turn."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from harness.agents.llm.config import declared
from harness.agents.llm.parse import MAX_CHAT, chat_problem, parse_chat, parse_moves
from harness.agents.specs import builtin_spec, llm_spec as spec
from harness.core.rules import GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import run_cli
from llm_server import StandIn, Step
from test_records_resume import cut_back


# -- the parse rule ----------------------------------------------------------------------------
@pytest.mark.parametrize("text, k, moves", [
    ("D", 1, "D"), ("C", 1, "C"), ("  Cooperate.", 1, "C"), ("Defect!", 1, "D"),
    ("I choose D", 1, "D"), ("I will cooperate", 1, None), ("maybe c or d", 1, None),
    ("I pick C\nbut D later", 1, "C"), ("first line\nD", 1, None),
    ("CHAT: let us both C\nACTION: D", 1, "D"),
    ("ACTION: C C D", 3, "CCD"), ("action: CCD", 3, "CCD"), ("C, D, C", 3, "CDC"),
    ("ACTION: C D", 3, None), ("CHAT: hi ACTION: C C D", 3, "CCD"),
    ("CHAT: I play C C C\nACTION: D D D", 3, "DDD"), ("Do it", 1, "D"), ("do it", 1, None),
])
def test_the_parse_rule(text, k, moves):
    parsed = parse_moves(text, k)
    assert parsed.moves == moves
    assert (parsed.error is None) == (moves is not None)


@given(st.text(max_size=300), st.integers(1, 5))
def test_the_parse_rule_reads_any_text_into_k_moves_or_a_reason(text, k):
    parsed = parse_moves(text, k)
    if parsed.moves is None:
        assert parsed.error
    else:
        assert len(parsed.moves) == k and set(parsed.moves) <= {"C", "D"}


@given(st.text(max_size=700))
def test_a_chat_shown_is_one_short_printable_line(text):
    chat = parse_chat("CHAT: " + text)
    if chat_problem(chat) is None:
        assert chat and len(chat) <= MAX_CHAT
        assert all(ch.isprintable() or ch == " " for ch in chat)


def test_chats_that_fail_the_check():
    assert chat_problem(None) and chat_problem("")
    assert chat_problem("x" * (MAX_CHAT + 1))
    assert chat_problem("hello\x1b[2J") and chat_problem("two\nlines")
    assert chat_problem("let's both cooperate") is None


# -- one game through the real client ----------------------------------------------------------
def _model(server, name="bot", model="m", **keys):
    entry = {"base_url": server.base_url, "model": model, **keys}
    return spec(f"llm:{name}", declared({"llm": {name: entry}}, Path("."), "test"))


def _game(server, opponent="titfortat", turns=3, per_turn=1, model="m", **keys):
    isolation = Isolation("none", 1.0)
    agent = open_handle(_model(server, model=model, **keys), isolation)
    other = open_handle(builtin_spec(opponent), isolation) if isinstance(opponent, str) \
        else open_handle(opponent, isolation)
    try:
        # "llm:bot" sorts before the built-ins: side a
        return play_game(agent, other, turns, 11, GameParams(moves_per_turn=per_turn,
                                                             flip=_no_flips()))
    finally:
        agent.close()
        other.close()


def _no_flips():
    from harness.core.rules import FlipParams

    return FlipParams(0.0, 0.0)


def test_a_clean_answer_is_played_as_it_is():
    with StandIn({"m": ["D"]}) as server:
        game = _game(server)
    assert game.intended_a == ["D", "D", "D"] and not game.fault_at
    assert [len(game.talk["a", t]["calls"]) for t in range(3)] == [1, 1, 1]


def test_an_unreadable_answer_is_asked_again_with_a_corrective_prompt():
    with StandIn({"m": ["I will cooperate", "D"]}) as server:
        game = _game(server, turns=1)
        second = server.calls()[1]["messages"]
    assert game.intended_a == ["D"] and not game.fault_at
    assert [call["response"] for call in game.talk["a", 0]["calls"]] == ["I will cooperate", "D"]
    # the same conversation, the bad answer in it, then the correction
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == "I will cooperate"
    assert "could not be read" in second[3]["content"]


def test_three_unreadable_answers_play_the_default_and_record_a_parse_error():
    with StandIn({"m": ["garbage"]}) as server:
        game = _game(server, turns=2)
        asked = len(server.calls())
    assert asked == 6                       # 1 + 2 retries per turn
    assert game.intended_a == ["C", "C"]    # the default answer
    fault = game.fault_at["a", 0]
    assert fault.kind == "invalid" and fault.message.startswith("parse error")
    assert game.talk["a", 0]["parse_error"]


def test_several_moves_after_the_action_marker():
    with StandIn({"m": ["CHAT: hello ACTION: C C D"]}) as server:
        game = _game(server, turns=2, per_turn=3)
    assert game.intended_a == ["CCD", "CCD"] and not game.fault_at


def test_history_and_score_in_the_prompt_from_the_model_side():
    with StandIn({"m": ["D"]}) as server:
        _game(server, opponent="cooperate", turns=12)
        prompts = [call["messages"][-1]["content"] for call in server.calls()]
    assert "first turn" in prompts[0]
    assert "you 5, the other player 0" in prompts[1]     # D against C: 5 and 0
    assert "turn 1: D; C; 5; 0" in prompts[1]
    last = prompts[11]
    assert "turn 1:" not in last and "turn 2: D; C; 5; 0" in last   # the last 10 turns only
    assert "you 55, the other player 0" in last


@pytest.mark.slow   # the backoff: 0.25 s, then 0.5 s
def test_a_server_error_is_retried_with_backoff():
    with StandIn({"m": [Step(status=500), Step(status=429), "D"]}) as server:
        game = _game(server, turns=1)
    assert game.intended_a == ["D"] and not game.fault_at
    assert game.talk["a", 0]["calls"][0]["tries"] == 3


def test_a_client_error_is_not_retried_and_is_an_exception_fault():
    with StandIn({"m": [Step(status=400)]}) as server:
        game = _game(server, turns=1)
        asked = len(server.calls())
    assert asked == 1
    assert game.fault_at["a", 0].kind == "exception"
    assert "HTTP 400" in game.fault_at["a", 0].message


def test_a_model_past_its_time_limit_times_out_and_is_not_asked_after_three():
    with StandIn({"m": [Step("D", delay=2.0)]}) as server:
        game = _game(server, turns=5, timeout=0.2, retries=0)
        asked = len(server.calls())
    assert [game.fault_at["a", t].kind for t in range(5)] == ["timeout"] * 5
    assert asked == 3                       # FAULT_POLICY.timeouts_in_a_row, as for any agent
    assert game.intended_a == ["C"] * 5


# -- the chat phase ------------------------------------------------------------------------------
def _chatters(server, script_a, script_b, turns=4, per_turn=3):
    models = declared({"llm": {
        "alice": {"base_url": server.base_url, "model": "ma", "chat": True},
        "bob": {"base_url": server.base_url, "model": "mb", "chat": True}}}, Path("."), "test")
    isolation = Isolation("none", 1.0)
    a = open_handle(spec("llm:alice", models), isolation)
    b = open_handle(spec("llm:bob", models), isolation)
    try:
        return play_game(a, b, turns, 5, GameParams(moves_per_turn=per_turn, flip=_no_flips()))
    finally:
        a.close()
        b.close()


def test_two_chatting_models_speak_in_turn_and_hear_only_the_chat():
    with StandIn({"ma": ["CHAT: alice here\nACTION: C C D"],
                  "mb": ["CHAT: bob here\nACTION: D D C"]}) as server:
        game = _chatters(server, None, None)
        order = [call["model"] for call in server.calls()]
        bob_turn_1 = server.calls("mb")[0]["messages"][-1]["content"]
        alice_turn_2 = server.calls("ma")[1]["messages"][-1]["content"]
    assert order == ["ma", "mb", "mb", "ma", "ma", "mb", "mb", "ma"]   # A first on odd turns
    assert "The other player says: alice here" in bob_turn_1
    assert "CCD" not in bob_turn_1 and "C C D" not in bob_turn_1      # never its action
    assert "The other player says: bob here" in alice_turn_2
    assert game.talk["a", 0]["first"] is True and game.talk["b", 0]["heard"] == "alice here"
    assert game.intended_a == ["CCD"] * 4 and game.intended_b == ["DDC"] * 4


def test_a_chat_that_fails_the_check_is_recorded_and_not_shown():
    with StandIn({"ma": ["CHAT: \x1b[31mred\nACTION: C C C"],
                  "mb": ["CHAT: fine\nACTION: C C C"]}) as server:
        game = _chatters(server, None, None, turns=1)
        bob = server.calls("mb")[0]["messages"][-1]["content"]
    assert game.talk["a", 0]["chat_problem"]
    assert game.talk["b", 0]["heard"] is None
    assert "said nothing" in bob and "red" not in bob


def test_a_chatting_model_against_a_fixed_policy_plays_without_the_chat_phase():
    with StandIn({"m": ["D"]}) as server:
        game = _game(server, turns=2, chat=True)
        prompt = server.calls()[0]["messages"][-1]["content"]
    assert game.intended_a == ["D", "D"]
    assert "CHAT" not in prompt


# -- the command line: course file, record, show, resume ------------------------------------------
def _course(tmp_path, server, **keys) -> Path:
    lines = ["[llm.bot]", f'base_url = "{server.base_url}"', 'model = "m"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    path = tmp_path / "pdharness.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_a_tournament_records_every_prompt_and_response_and_show_prints_them(tmp_path):
    with StandIn({"m": ["garbage", "ACTION: C D C",
                        "\x1b]0;owned\x07<script>x</script>ACTION: D D D"]}) as server:
        course = _course(tmp_path, server)
        db, report = tmp_path / "run.sqlite", tmp_path / "report.html"
        status, out, err = run_cli("tournament", "llm:bot", "titfortat", "--config", course,
                                   "--seed", "3", "--length", "2", "2", "--max-rounds", "1",
                                   "--isolation", "process", "--db", db, "--format", "json",
                                   "--report", report, cwd=tmp_path)
        assert status == 0, err
        asked = len(server.calls())
    result = json.loads(out)
    assert {a["name"]: a["language"] for a in result["agents"]}["llm:bot"] == "llm"
    with sqlite3.connect(db) as connection:
        calls = connection.execute("SELECT response, prompt FROM llm_call ORDER BY turn, "
                                   "attempt").fetchall()
        config = json.loads(connection.execute("SELECT config FROM llm_agent").fetchone()[0])
    assert len(calls) == asked == 3
    assert calls[0][0] == "garbage" and json.loads(calls[1][1])[2]["content"] == "garbage"
    assert config["model"] == "m" and "framing_text" in config
    status, out, err = run_cli("show", db, "--game", "1")
    assert status == 0, err
    assert "answered: garbage" in out and "answered again (2): ACTION: C D C" in out
    assert "\x1b" not in out and "\x07" not in out           # model output is escaped
    page = report.read_text()
    assert "answered again (2): ACTION: C D C" in page
    assert "<script>x" not in page and "\x1b" not in page    # escaped in the report too
    assert 'id="llm"' in page and "Language models" in page
    status, out, err = run_cli("show", db, "--game", "1", "--format", "json")
    talk = json.loads(out)["turns"][0]["talk"]["a"]
    assert [c["response"] for c in talk["calls"]] == ["garbage", "ACTION: C D C"]


@pytest.mark.slow
@pytest.mark.parametrize("family, structured", [
    ("openai", "auto"), ("llama_cpp", "auto"), ("openai", "off")])
def test_resume_never_asks_again_for_a_recorded_turn(tmp_path, family, structured):
    """Structured or not: with the journal, the resumed run asks nothing, not
    even which form the server takes (llama_cpp refuses json_schema once a process)."""
    from llm_server import Small

    agents = ("llm:bot", "titfortat", "defect", "grudger", "cooperate")
    with StandIn({"m": [Small(moves="CDD", prose="ACTION: C D D")]}, family=family) as server:
        course = _course(tmp_path, server, structured=structured)
        options = ("--config", course, "--seed", "8", "--length", "3", "5",
                   "--isolation", "process", "--format", "json", "--jobs", "1")
        reference = tmp_path / "reference.sqlite"
        status, out, err = run_cli("tournament", *agents, *options, "--db", reference)
        assert status == 0, err
        first_run = len(server.calls())
        with sqlite3.connect(reference) as connection:
            rounds = connection.execute("SELECT count(*) FROM round").fetchone()[0]
        assert rounds >= 2
        cut = tmp_path / "cut.sqlite"
        cut.write_bytes(reference.read_bytes())
        with sqlite3.connect(cut) as connection:   # a run stopped after round 1
            later = "(SELECT id FROM game WHERE round > 1)"
            connection.execute(f"DELETE FROM llm_call WHERE game IN {later}")
            connection.execute(f"DELETE FROM llm_turn WHERE game IN {later}")
            in_round_1 = connection.execute("SELECT count(*) FROM llm_call").fetchone()[0]
        cut_back(cut, 1)
        unjournaled = tmp_path / "unjournaled.sqlite"   # ... before its round 2 answered
        unjournaled.write_bytes(cut.read_bytes())
        with sqlite3.connect(unjournaled) as connection:
            connection.execute("DELETE FROM llm_journal")
        # every answer is in the journal, those of the rounds not finished too
        status, resumed, err = run_cli("resume", cut, "--format", "json", "--isolation",
                                       "process", cwd=tmp_path)
        assert status == 0, err
        assert len(server.calls()) == first_run
        # without the journal, only the completed round's turns are not asked again
        status, resumed_too, err = run_cli("resume", unjournaled, "--format", "json",
                                           "--isolation", "process", cwd=tmp_path)
        assert status == 0, err
        asked_again = len(server.calls()) - first_run
    # (llama_cpp: one refusal each, in the first run and in the resumed one)
    assert asked_again == first_run - in_round_1
    assert _timeless(json.loads(resumed)) == _timeless(json.loads(out))
    assert _timeless(json.loads(resumed_too)) == _timeless(json.loads(out))
    with sqlite3.connect(cut) as connection:
        forms = {row[0] for row in connection.execute("SELECT structured FROM llm_call")}
    assert forms == {{"openai": "json_schema", "llama_cpp": "json_object"}[family]
                     if structured == "auto" else "off"}


def _timeless(result: dict) -> dict:
    """A result without the model calls' latencies (measured, so never the same twice)."""
    for entry in [*result["llm"]["agents"].values(),
                  *(side for game in result["llm"]["games"] for side in
                    (game.get("a"), game.get("b")) if isinstance(side, dict))]:
        entry.pop("mean_latency")
    return result


@pytest.mark.slow
def test_an_unreachable_server_or_unknown_model_is_one_line_before_any_game(tmp_path):
    with StandIn({"other-model": ["C"]}) as server:
        course = _course(tmp_path, server)
        status, out, err = run_cli("tournament", "llm:bot", "titfortat", "--config", course,
                                   "--isolation", "process")
        assert not server.calls()
    assert status == 2 and "Traceback" not in err
    assert "no model 'm'" in err.strip().splitlines()[-1]
    url = server.base_url           # the server is gone now
    (tmp_path / "gone.toml").write_text(f'[llm.bot]\nbase_url = "{url}"\nmodel = "m"\n')
    status, out, err = run_cli("tournament", "llm:bot", "titfortat", "--config",
                               tmp_path / "gone.toml", "--isolation", "process")
    assert status == 2 and "Traceback" not in err and "cannot reach" in err


@pytest.mark.parametrize("entry, problem", [
    ({"model": "m"}, "base_url is required"),
    ({"base_url": "file:///etc/passwd", "model": "m"}, "http://"),
    ({"base_url": "http://x/v1", "model": "m", "api_key_env": "sk-abc123"}, "never the key"),
    ({"base_url": "http://x/v1", "model": "m", "temperature": 7}, "temperature"),
    ({"base_url": "http://x/v1", "model": "m", "colour": 1}, "unknown key"),
    ({"base_url": "http://x/v1", "model": "m", "framing": "nosuch.txt"}, "framing"),
])
def test_a_bad_declaration_is_one_clear_line(tmp_path, entry, problem):
    from harness.core.errors import HarnessError

    with pytest.raises(HarnessError, match=problem):
        declared({"llm": {"bot": entry}}, tmp_path, "course", keys=True)


_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=10), inner, max_size=3), max_leaves=8)


@given(st.dictionaries(st.text(max_size=12), _VALUES, max_size=4)
       | st.dictionaries(st.sampled_from(["base_url", "model", "temperature", "seed",
                                          "max_tokens", "api_key_env", "framing", "chat",
                                          "timeout", "retries", "in_flight"]),
                        _VALUES, max_size=11), st.text(max_size=12) | st.integers())
def test_any_declaration_is_a_model_or_one_clear_line(entry, name):
    """A course, population or experiment file is a user's input: whatever its `llm`
    table holds, reading it gives a checked declaration or a HarnessError, nothing else."""
    from harness.core.errors import HarnessError

    try:
        models = declared({"llm": {name: entry}}, Path("/nonexistent"), "file")
    except HarnessError as error:
        assert "\n" not in str(error)
        return
    (config,) = models.values()
    assert config.base_url.startswith(("http://", "https://")) and config.model
    assert 0 <= config.temperature <= 2 and config.max_tokens >= 1 and config.timeout > 0


def test_a_framing_template_of_the_course(tmp_path):
    (tmp_path / "mine.txt").write_text("Points: $T $R $P $S for $choices.")
    (tmp_path / "bad.txt").write_text("Points: $money")
    from harness.core.errors import HarnessError

    with StandIn({"m": ["D"]}) as server:
        models = declared({"llm": {"bot": {"base_url": server.base_url, "model": "m",
                                           "framing": "mine.txt"}}}, tmp_path, "course")
        isolation = Isolation("none", 1.0)
        a = open_handle(spec("llm:bot", models), isolation)
        b = open_handle(builtin_spec("defect"), isolation)
        play_game(a, b, 1, 1, GameParams())
        system = server.calls()[0]["messages"][0]["content"]
    assert system == "Points: 5 3 1 0 for 3 choices."
    with pytest.raises(HarnessError, match=r"\$money"):
        declared({"llm": {"bot": {"base_url": "http://x/v1", "model": "m",
                                  "framing": "bad.txt"}}}, tmp_path, "course")


def test_an_undeclared_model_is_one_clear_line(tmp_path):
    status, out, err = run_cli("tournament", "llm:nobody", "titfortat", cwd=tmp_path)
    assert status == 2 and "Traceback" not in err and "no language model 'nobody'" in err


def test_import_harness_does_not_import_the_model_client():
    import subprocess
    import sys

    code = ("import harness, harness.cli, sys; print(any(name in sys.modules for name in "
            "('openai', 'http.client', 'harness.agents.llm.client')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False"


@pytest.mark.slow
def test_play_prints_what_the_model_answered_escaped(tmp_path):
    with StandIn({"m": ["\x1b[2Jgarbage", "D"]}) as server:
        course = _course(tmp_path, server)
        status, out, err = run_cli("play", "llm:bot", "cooperate", "--config", course,
                                   "--turns", "2", "--moves-per-turn", "1",
                                   "--isolation", "process")
    assert status == 0, err
    assert "llm:bot answered: " in out and "answered again (2): D" in out
    assert "\x1b" not in out


@pytest.mark.slow
def test_an_experiment_compares_framings_like_any_condition(tmp_path):
    with StandIn({"m": [lambda messages: "D" if "company" in messages[0]["content"] else "C"]}
                 ) as server:
        models = {"plain": {"base_url": server.base_url, "model": "m"},
                  "firm": {"base_url": server.base_url, "model": "m", "framing": "business"}}
        plan = {"llm": models, "replicates": 1,
                "parameters": {"length": [2, 2], "moves-per-turn": 1, "flip": [0, 0]},
                "types": [{"id": "model", "agent": "llm:plain"},
                          {"id": "tft", "agent": "titfortat"}],
                "conditions": [{"name": "neutral"},
                               {"name": "business",
                                "types": [{"id": "model", "agent": "llm:firm"},
                                          {"id": "tft", "agent": "titfortat"}]}]}
        path = tmp_path / "experiment.json"
        path.write_text(json.dumps(plan))
        db = tmp_path / "experiment.sqlite"
        status, out, err = run_cli("experiment", path, "--format", "json", "--jobs", "1",
                                   "--isolation", "process", "--db", db, cwd=tmp_path)
        asked = len(server.calls())
    assert status == 0, err
    with sqlite3.connect(db) as connection:   # every request, by condition and replicate
        recorded = connection.execute("SELECT condition, count(*) FROM llm_call "
                                      "GROUP BY condition").fetchall()
    assert sum(count for _, count in recorded) == asked and len(recorded) == 2
    text = json.dumps(json.loads(out))
    assert "neutral" in text and "business" in text
    cooperation = {}
    for condition in json.loads(out)["conditions"]:
        for entry in condition["types"]:
            if entry["type"] == "model":
                cooperation[condition["name"]] = entry["cooperation"]
    assert cooperation == {"neutral": 1.0, "business": 0.0}


def test_the_progress_bar_counts_model_requests():
    import io

    from harness.engine.tournament import Settings
    from harness.run.progress import TournamentProgress

    with StandIn({"m": [Step(status=500), "garbage", "D"]}) as server:
        game = _game(server, turns=2)
    stream = io.StringIO()
    progress = TournamentProgress(Settings(), stream)
    progress.remaining = 2
    progress.game_finished(game)
    progress._draw(done_round=1)   # a round's end: off a terminal, its line is written
    # turn 1: 500 then garbage (2 requests), D after the correction; turn 2: D
    assert "model requests 4" in stream.getvalue()


def test_a_condition_turns_its_models_chat_on_or_off():
    from harness.core.errors import HarnessError
    from harness.run.experiment.plan import plan

    data = {"llm": {"m": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}},
            "types": [{"id": "model", "agent": "llm:m", "count": 2},
                      {"id": "tft", "agent": "titfortat"}],
            "conditions": [{"name": "silent"}, {"name": "talking", "chat": True}]}
    experiment = plan(data, b"", Path("experiment.json"), None)
    chats = [[spec.llm.chat for spec in c.specs() if spec.language == "llm"]
             for c in experiment.conditions]
    assert chats == [[False, False], [True, True]]
    data["conditions"][1]["chat"] = "yes"
    with pytest.raises(HarnessError, match="chat is true or false"):
        plan(data, b"", Path("experiment.json"), None)


def test_the_example_experiment_reads():
    from harness.run.experiment.plan import load

    experiment = load(Path(__file__).parent.parent / "examples" / "llm.toml")
    framings = {c.name: {(s.llm.framing, s.llm.chat) for s in c.specs() if s.language == "llm"}
                for c in experiment.conditions}
    assert framings == {"neutral": {("neutral", False)}, "neutral-chat": {("neutral", True)},
                        "business": {("business", False)}}


def test_a_model_agent_does_not_travel_to_a_cluster():
    from harness.core.errors import HarnessError
    from harness.run.cluster.shipment import pack

    model = spec("llm:bot", declared({"llm": {"bot": {"base_url": "http://127.0.0.1:9/v1",
                                                      "model": "m"}}}, Path("."), "test"))
    with pytest.raises(HarnessError, match="language model"):
        pack([model, builtin_spec("titfortat")])


@pytest.mark.slow
def test_the_api_key_comes_from_the_variable_named_and_is_never_recorded(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("PDH_TEST_KEY", "sk-very-secret")
    with StandIn({"m": ["D"]}) as server:
        course = _course(tmp_path, server, api_key_env="PDH_TEST_KEY")
        db = tmp_path / "run.sqlite"
        status, out, err = run_cli("tournament", "llm:bot", "defect", "--config", course,
                                   "--length", "2", "2", "--isolation", "process",
                                   "--db", db, "--format", "json")
        keys = set(server.keys)
    assert status == 0, err
    assert keys == {"Bearer sk-very-secret"}
    assert b"sk-very-secret" not in db.read_bytes() and "sk-very-secret" not in out
    monkeypatch.delenv("PDH_TEST_KEY")
    status, out, err = run_cli("tournament", "llm:bot", "defect", "--config", course,
                               "--isolation", "process")
    assert status == 2 and "PDH_TEST_KEY" in err and "Traceback" not in err


GPT = {"base_url": "https://attacker.example/v1", "model": "m", "api_key_env": "PDH_TEST_KEY"}


@pytest.mark.parametrize("kind", ["experiment", "population", "found course file"])
def test_only_a_course_file_named_on_the_command_line_chooses_a_key(tmp_path, kind):
    """Which of the instructor's variables is sent, and where, is theirs to say:
    a file handed to them, or one found in a folder of uploads, may not name api_key_env."""
    types = [{"id": "gpt", "agent": "llm:gpt", "count": 1},
             {"id": "tft", "agent": "titfortat", "count": 1}]
    if kind == "found course file":
        (tmp_path / "pdharness.toml").write_text(
            "[llm.gpt]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in GPT.items()))
        argv, named = ["tournament", "llm:gpt", "titfortat"], "pdharness.toml: llm.gpt"
    else:
        path = tmp_path / "planted.json"
        path.write_text(json.dumps({"types": types, "llm": {"gpt": GPT}}))
        argv = ["experiment", path] if kind == "experiment" else \
            ["tournament", "--population", path]
        named = "planted.json: llm.gpt"
    status, out, err = run_cli(*argv, "--isolation", "none", cwd=tmp_path)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert f"{named}: api_key_env" in err and "--config" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_record_cannot_send_a_key_without_the_named_course_file(tmp_path, monkeypatch):
    """resume takes a model's declaration from the record, but not which secret it sends
    where: that needs the course file declaring it, named again."""
    import sqlite3

    monkeypatch.setenv("PDH_TEST_KEY", "sk-very-secret")
    with StandIn({"m": ["D"] * 40}) as server:
        course = _course(tmp_path, server, api_key_env="PDH_TEST_KEY")
        db = tmp_path / "run.sqlite"
        status, _, err = run_cli("tournament", "llm:bot", "defect", "titfortat", "--config",
                                 course, "--length", "1", "1", "--isolation", "process",
                                 "--db", db)
        assert status == 0, err
        with sqlite3.connect(db) as connection:   # as if stopped, and sent elsewhere
            connection.execute("UPDATE run SET finished_at = NULL")
        status, out, err = run_cli("resume", db, "--isolation", "process")
        assert status == 2 and out == "" and err.count("\n") == 1, err
        assert "$PDH_TEST_KEY" in err and "--config" in err
        status, _, err = run_cli("resume", db, "--isolation", "process", "--config", course)
        assert "PDH_TEST_KEY" not in err, err


@pytest.mark.parametrize("in_flight", [1, 2])
def test_requests_in_flight_are_capped(in_flight):
    """The two models of a game are asked at once (a thread each) unless the cap is 1: the
    server holds each request until a second one comes (or gives up waiting)."""
    import threading

    meeting = threading.Barrier(2)
    met: list[bool] = []

    def meet(_messages):
        try:
            meeting.wait(timeout=10 if in_flight == 2 else 0.5)
            met.append(True)
        except threading.BrokenBarrierError:
            met.append(False)
            meeting.reset()
        return "D"

    with StandIn({"ma": [meet], "mb": [meet]}) as server:
        models = declared({"llm": {
            name: {"base_url": server.base_url, "model": model, "in_flight": in_flight}
            for name, model in (("alice", "ma"), ("bob", "mb"))}}, Path("."), "test")
        from harness.agents.llm import client

        client._IN_FLIGHT.clear()   # the cap is per endpoint and process: this test's own
        isolation = Isolation("none", 1.0)
        a, b = (open_handle(spec(f"llm:{n}", models), isolation) for n in ("alice", "bob"))
        try:
            play_game(a, b, 1, 3, GameParams(moves_per_turn=1))
        finally:
            a.close()
            b.close()
            client._IN_FLIGHT.clear()
    assert met == ([True, True] if in_flight == 2 else [False, False])


@pytest.mark.slow
def test_a_record_made_before_language_models_still_reads_and_resumes(tmp_path):
    db = tmp_path / "old.sqlite"
    status, out, err = run_cli("tournament", "defect", "titfortat", "random", "--seed", "2",
                               "--isolation", "none", "--db", db, "--format", "json")
    assert status == 0, err
    with sqlite3.connect(db) as connection:   # schema 1 as it was before model agents
        for table in ("llm_agent", "llm_call", "llm_turn", "llm_journal"):
            connection.execute(f"DROP TABLE {table}")
    cut_back(db, 1)
    status, shown, err = run_cli("show", db, "--game", "1")
    assert status == 0, err
    status, resumed, err = run_cli("resume", db, "--format", "json", "--isolation", "none")
    assert status == 0, err
    assert json.loads(resumed) == json.loads(out)


def test_closing_a_handle_never_waits_for_the_model():
    """Ctrl-C closes every handle: one whose model is still thinking lets go at once, its
    call is stopped (the connection shut down, so its thread ends while the server still
    holds the request), and that thread closes the pipe as it ends."""
    import os
    import threading

    from harness.isolation.handles.agent_handle import GameStart

    release = threading.Event()

    def held(_messages):
        release.wait(60)
        return "D"

    with StandIn({"m": [held]}) as server:
        handle = open_handle(_model(server, timeout=120), Isolation("none", 1.0))
        handle.start_game(GameStart(1, 1, GameParams().payoffs))
        handle.request(None)
        turn = handle._turn
        while not server.calls():             # the request is at the server
            threading.Event().wait(0.01)
        handle.close()                        # returns while the server holds the request
        turn.thread.join(30)
        ended_while_held = not turn.thread.is_alive() and not release.is_set()
        release.set()
        closed = []
        for fd in (handle._read_fd, handle._write_fd):   # closed by the turn's thread
            try:
                os.fstat(fd)
            except OSError:
                closed.append(fd)
    assert ended_while_held and len(closed) == 2
    assert "timeout" == turn.reply.fault.kind
