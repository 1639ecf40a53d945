"""Structured answers, tokens and the example turn, through the real client
against the scripted stand-in server (tests/llm_server.py) of each server family: OpenAI /
vLLM / Ollama (`json_schema`), llama-cpp-python (`json_object` with a schema; 500 to
`json_schema`), one that takes no response_format, and one that ignores it."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from harness.agents.llm.answer_schema import MAX_JSON, read_json_answer, schema
from harness.agents.llm.config import LlmConfig, declared
from harness.agents.llm.parse import MAX_CHAT, read_answer
from harness.agents.specs import builtin_spec, llm_spec as spec
from harness.core.rules import FlipParams, GameParams
from harness.engine.game import play_game
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import run_cli
from llm_server import Small, StandIn, Step
from test_llm import _course
from test_records_resume import cut_back


def _game(server, turns=3, per_turn=3, opponent="titfortat", **keys):
    models = declared({"llm": {"bot": {"base_url": server.base_url, "model": "m", **keys}}},
                      Path("."), "test")
    isolation = Isolation("none", 1.0)
    agent = open_handle(spec("llm:bot", models), isolation)
    other = open_handle(builtin_spec(opponent), isolation)
    try:   # "llm:bot" sorts before the built-ins: side a
        return play_game(agent, other, turns, 11, GameParams(moves_per_turn=per_turn,
                                                             flip=FlipParams(0.0, 0.0)))
    finally:
        agent.close()
        other.close()


def _formats(server) -> list:
    """The type of each request's response_format (None: none sent), in order."""
    return [(body.get("response_format") or {}).get("type") for body in server.calls()]


def _parse_errors(game) -> int:
    return sum(talk["parse_error"] is not None for talk in game.talk.values())


# -- the families ---------------------------------------------------------------------------------
def test_a_small_model_under_json_schema_plays_where_prose_fails():
    with StandIn({"m": [Small(moves="DCD")]}, family="openai") as server:
        prose = _game(server, structured="off")
        asked_in_prose = _formats(server)
    assert _parse_errors(prose) == 3 and prose.intended_a == ["CCC"] * 3   # the default
    assert asked_in_prose == [None] * 9                                    # 3 answers a turn
    with StandIn({"m": [Small(moves="DCD")]}, family="openai") as server:
        game = _game(server)                                               # auto, the default
        asked = _formats(server)
        sent = server.calls()[0]["response_format"]["json_schema"]["schema"]
    assert _parse_errors(game) == 0 and not game.fault_at
    assert game.intended_a == ["DCD"] * 3
    assert asked == ["json_schema"] * 3
    assert sent == schema(3, False, MAX_CHAT)
    assert sent["properties"]["moves"]["minItems"] == sent["properties"]["moves"]["maxItems"] == 3
    assert {call["structured"] for talk in game.talk.values() for call in talk["calls"]} == \
        {"json_schema"}


def test_llama_cpp_refuses_json_schema_once_and_the_run_keeps_json_object():
    with StandIn({"m": [Small(moves="CDD")]}, family="llama_cpp") as server:
        game = _game(server, turns=4)
        asked = _formats(server)
        taken = server.calls()[1]["response_format"]
    assert asked == ["json_schema", "json_object", "json_object", "json_object", "json_object"]
    assert taken["schema"] == schema(3, False, MAX_CHAT)
    assert _parse_errors(game) == 0 and not game.fault_at
    assert game.intended_a == ["CDD"] * 4
    first = game.talk["a", 0]["calls"]
    # the refusal is no try of the call: a result must not depend on which process found it
    assert len(first) == 1 and first[0]["structured"] == "json_object" and first[0]["tries"] == 1


def test_a_server_that_takes_no_response_format_steps_down_to_prose():
    with StandIn({"m": ["ACTION: D D C"]}, family="prose") as server:
        game = _game(server, turns=2)
        asked = _formats(server)
        last_prompt = server.calls()[-1]["messages"][-1]["content"]
    assert asked == ["json_schema", "json_object", None, None]
    assert game.intended_a == ["DDC"] * 2 and not game.fault_at
    assert "ACTION:" in last_prompt and "JSON" not in last_prompt


def test_a_server_that_ignores_the_schema_still_plays_by_the_prose_rule():
    with StandIn({"m": ["I choose: ACTION: D D C", Small()]}, family="ignores") as server:
        game = _game(server, turns=2)
        asked = _formats(server)
    assert asked[0] == "json_schema"
    assert game.intended_a[0] == "DDC" and ("a", 0) not in game.fault_at
    # prose no rule reads: three answers, then the default answer and a parse error
    assert game.talk["a", 1]["parse_error"] and game.fault_at["a", 1].kind == "invalid"


def test_a_named_form_is_never_stepped_down_from_and_its_refusal_says_so():
    with StandIn({"m": [Small()]}, family="llama_cpp") as server:
        game = _game(server, turns=1, structured="json_schema")
        asked = _formats(server)
    assert asked == ["json_schema"]
    fault = game.fault_at["a", 0]
    assert fault.kind == "exception"
    assert "response_format" in fault.message and "structured = 'json_schema'" in fault.message


def test_a_named_json_object_is_sent_as_llama_cpp_takes_it():
    with StandIn({"m": [Small(moves="D")]}, family="llama_cpp") as server:
        game = _game(server, turns=2, per_turn=1, structured="json_object")
        asked = _formats(server)
    assert asked == ["json_object"] * 2 and game.intended_a == ["D", "D"]


def test_off_sends_no_response_format_and_reads_json_by_the_prose_rule():
    """off is the rule as it was: a JSON answer of 4 moves for 3 is read by the prose rule
    (its first 3), where a structured request judges it by the schema (an invalid fault)."""
    four = json.dumps({"moves": ["C", "D", "C", "D"]})
    with StandIn({"m": [four]}) as server:
        prose = _game(server, turns=1, structured="off")
        prompt = server.calls()[0]["messages"][-1]["content"]
        keys = set(server.calls()[0])
    assert "response_format" not in keys and "ACTION:" in prompt
    assert prose.intended_a == ["CDC"] and not prose.fault_at
    with StandIn({"m": [four]}) as server:
        structured = _game(server, turns=1)
    assert structured.fault_at["a", 0].kind == "invalid"
    assert "4 moves" in structured.fault_at["a", 0].message


def test_the_chat_phase_asks_for_a_one_line_chat_in_the_schema():
    with StandIn({"ma": [Small(moves="C", chat="alice here")],
                  "mb": [Small(moves="D", chat="bob here")]}, family="llama_cpp") as server:
        models = declared({"llm": {
            "alice": {"base_url": server.base_url, "model": "ma", "chat": True},
            "bob": {"base_url": server.base_url, "model": "mb", "chat": True}}},
            Path("."), "test")
        isolation = Isolation("none", 1.0)
        a, b = (open_handle(spec(f"llm:{n}", models), isolation) for n in ("alice", "bob"))
        try:
            game = play_game(a, b, 2, 5, GameParams(moves_per_turn=1, flip=FlipParams(0, 0)))
        finally:
            a.close()
            b.close()
        sent = server.calls("mb")[-1]
        heard = server.calls("mb")[0]["messages"][-1]["content"]   # turn 1: alice first
    properties = sent["response_format"]["schema"]["properties"]
    assert list(properties) == ["chat", "moves"] and properties["chat"]["maxLength"] == MAX_CHAT
    assert "The other player says: alice here" in heard
    assert game.intended_a == ["C", "C"] and game.intended_b == ["D", "D"]
    assert game.talk["b", 0]["heard"] == "alice here" and game.talk["a", 0]["chat"] == "alice here"


# -- what breaks the schema -------------------------------------------------------------------------
@pytest.mark.parametrize("answer, reason", [
    ('{"moves": ["C", "D"]}', "2 moves"),
    ('{"moves": "CDC"}', "not a list"),
    ('{"moves": {"1": "C"}}', "not a list"),
    ('{"moves": ["C", "D", "C"], "why": "so"}', "besides"),
    ('{"moves": ["C", "D", "x"]}', 'move 3 of "moves" is not "C" or "D"'),
    ('{"moves": ["C", "D", "C"], "moves": ["D", "D", "D"]}', "twice"),
    ('["C", "D", "C"]', "a list, not an object"),
    ('{"choice": ["C", "D", "C"]}', "besides"),
    ('{}', 'no "moves"'),
    ('{"moves": [' + '"C", ' * 2000 + '"C"]}', f"more than {MAX_JSON} characters"),
    ('{"moves": ' + "[" * 1400 + "]" * 1400 + "}", "nested too deeply"),
])
def test_a_schema_answer_that_breaks_it_is_an_invalid_fault_with_its_reason(answer, reason):
    with StandIn({"m": [answer]}) as server:
        game = _game(server, turns=1)
        asked = len(server.calls())
    fault = game.fault_at["a", 0]
    assert fault.kind == "invalid" and fault.message.startswith("parse error")
    assert reason in fault.message and reason in game.talk["a", 0]["parse_error"]
    assert asked == 3                       # asked again twice, as for any unreadable answer
    assert game.intended_a == ["CCC"]
    corrected = game.talk["a", 0]["calls"][1]["prompt"][-1]["content"]
    assert reason in corrected and "JSON" in corrected


def test_a_schema_answer_after_a_correction_is_played():
    with StandIn({"m": ['{"moves": ["C"]}', '```json\n{"moves": ["D", "D", "C"]}\n```']}) as server:
        game = _game(server, turns=1)
    assert game.intended_a == ["DDC"] and not game.fault_at


# -- the reader, for any input -------------------------------------------------------------------
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=8) | st.sampled_from(["C", "D"]),
                     lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
                         st.sampled_from(["moves", "chat", "x"]) | st.text(max_size=5),
                         inner, max_size=3), max_leaves=12)


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=400), _JSON.map(json.dumps),
                 st.builds(lambda value, k: json.dumps({"moves": value}), _JSON,
                           st.integers(1, 5))),
       st.integers(1, 5), st.booleans(), st.sampled_from(["json_schema", "json_object", "off"]))
def test_any_answer_reads_into_k_moves_or_one_reason(text, k, chat, form):
    read = read_answer(text, k, chat, form)
    if read.moves is None:
        assert read.error and "\n" not in read.error and len(read.error) < 120
    else:
        assert read.error is None and len(read.moves) == k and set(read.moves) <= {"C", "D"}
        assert read.chat is None or isinstance(read.chat, str)


@given(st.lists(st.sampled_from(["C", "D"]), min_size=1, max_size=5), st.booleans(),
       st.text(max_size=60), st.sampled_from(["", " ", "\n", "```json\n", "```\n"]))
def test_an_answer_under_the_schema_is_read_as_it_is(moves, chat, said, wrapper):
    value = {"chat": said, "moves": moves} if chat else {"moves": moves}
    body = json.dumps(value)
    text = f"{wrapper}{body}{chr(10) + '```' if wrapper.startswith('```') else wrapper}"
    read = read_answer(text, len(moves), chat, "json_schema")
    assert read.moves == "".join(moves) and read.error is None
    assert read.chat == (said if chat else None)


@given(st.lists(st.sampled_from(["C", "D"]), min_size=1, max_size=5), st.integers(1, 5),
       st.dictionaries(st.text(max_size=6).filter(lambda key: key != "moves"),
                       _JSON, min_size=1, max_size=2))
def test_json_with_other_keys_or_counts_is_never_played(moves, k, extra):
    broken = read_json_answer(json.dumps({"moves": moves, **extra}), k, False)
    assert broken is not None and broken.moves is None and broken.error
    if len(moves) != k:
        counted = read_json_answer(json.dumps({"moves": moves}), k, False)
        assert counted is not None and counted.moves is None and f"{len(moves)} moves" in \
            counted.error


def test_text_that_is_not_json_is_left_to_the_prose_rule():
    for text in ("ACTION: C D C", "[C, D, C]", '{moves: [C, D, C]}', '"D"', "1", "null"):
        assert read_json_answer(text, 3, False) is None
    assert read_answer('{moves: ["C", "D", "C"]}', 3, False, "json_schema").moves == "CDC"


# -- tokens --------------------------------------------------------------------------------------
@pytest.mark.slow
def test_tokens_reach_the_record_the_json_the_table_and_the_report(tmp_path):
    with StandIn({"m": ["garbage", Small(moves="D")]}, family="llama_cpp") as server:
        course = _course(tmp_path, server)
        db, report = tmp_path / "run.sqlite", tmp_path / "report.html"
        options = ("llm:bot", "titfortat", "defect", "--config", course, "--seed", "3",
                   "--length", "3", "3", "--max-rounds", "1", "--isolation", "process")
        status, out, err = run_cli("tournament", *options, "--db", db, "--format", "json",
                                   "--report", report, cwd=tmp_path)
        assert status == 0, err
        said = list(server.usages)
        status, table, err = run_cli("show", db)
        assert status == 0, err
    asked = sum(usage["prompt_tokens"] for usage in said)
    answered = sum(usage["completion_tokens"] for usage in said)
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT structured, prompt_tokens, completion_tokens, "
                                  "response FROM llm_call ORDER BY game, turn, attempt").fetchall()
        per_game = connection.execute("SELECT game, sum(prompt_tokens), sum(completion_tokens) "
                                      "FROM llm_call GROUP BY game ORDER BY game").fetchall()
    assert len(rows) == len(said)           # the refused request is no call of its own
    assert rows[0][0] == "json_object" and rows[0][3] == "garbage"
    assert (sum(r[1] for r in rows), sum(r[2] for r in rows)) == (asked, answered)
    metrics = json.loads(out)["llm"]
    agent = metrics["agents"]["llm:bot"]
    assert (agent["prompt_tokens"], agent["completion_tokens"]) == (asked, answered)
    assert agent["calls_without_usage"] == 0 and agent["structured"] == ["json_object"]
    games = [(side["prompt_tokens"], side["completion_tokens"]) for g in metrics["games"]
             for side in (g["a"], g["b"]) if isinstance(side, dict)]
    assert games == [(p, c) for _, p, c in per_game]
    assert f"tokens {asked} in, {answered} out" in table
    page = report.read_text()
    assert f"<td class=\"n\">{asked}</td>" in page and "completion tokens" in page


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": -1, "completion_tokens": 3}, {"prompt_tokens": 10 ** 30,
                                                    "completion_tokens": 3},
    {"prompt_tokens": "12", "completion_tokens": 3}, {"prompt_tokens": True,
                                                      "completion_tokens": 3},
    {"prompt_tokens": 1.5, "completion_tokens": 3}, None, "lots", [1, 2]])
def test_token_counts_a_server_cannot_mean_are_not_believed(usage):
    from harness.agents.llm.model_metrics import summary

    with StandIn({"m": [Step("ACTION: D D D", usage=usage)]}) as server:
        game = _game(server, turns=1)
    call = game.talk["a", 0]["calls"][0]
    assert call["prompt_tokens"] is None and game.intended_a == ["DDD"]
    game.a, game.b, game.round = "llm:bot", "titfortat", 1
    metrics = summary([game])["agents"]["llm:bot"]
    assert metrics["calls_without_usage"] == 1 and metrics["prompt_tokens"] == 0


# -- the example turn ------------------------------------------------------------------------------
def test_the_framing_shows_one_example_turn_in_the_form_asked_for():
    with StandIn({"m": [Small(moves="C")]}, family="llama_cpp") as server:
        game = _game(server, turns=1, per_turn=1)
        refused, taken = server.calls()
    system = taken["messages"][0]["content"]
    assert "An example of one turn" in system and '{"moves": ["D"]}' in system
    assert game.talk["a", 0]["calls"][0]["prompt"][0]["content"] == system   # recorded
    with StandIn({"m": ["C"]}) as server:
        _game(server, turns=1, per_turn=3, structured="off")
        prose = server.calls()[0]["messages"][0]["content"]
    assert "An example of one turn" in prose and "ACTION: D C D" in prose
    config = declared({"llm": {"bot": {"base_url": "http://x/v1", "model": "m"}}},
                      Path("."), "test")["bot"]
    assert "$example" in config.framing_text     # the recorded framing keeps its place


# -- declarations and records ----------------------------------------------------------------------
@pytest.mark.parametrize("value", ["yes", True, 1, ["auto"], "JSON"])
def test_a_bad_structured_setting_is_one_clear_line(value):
    from harness.core.errors import HarnessError

    with pytest.raises(HarnessError, match="structured is one of auto, json_schema, "
                                           "json_object, off"):
        declared({"llm": {"bot": {"base_url": "http://x/v1", "model": "m",
                                  "structured": value}}}, Path("."), "test")


def test_a_model_recorded_before_structured_answers_resumes_in_prose():
    recorded = json.loads(LlmConfig("bot", "http://x/v1", "m").as_json())
    del recorded["structured"]
    assert LlmConfig.from_json(json.dumps(recorded)).structured == "off"
    recorded["structured"] = "sometimes"
    with pytest.raises(ValueError):
        LlmConfig.from_json(json.dumps(recorded))


@pytest.mark.slow
def test_a_record_made_before_tokens_resumes_and_writes_them(tmp_path):
    """A record of the previous schema (llm_call and llm_journal without the new columns)
    reads, resumes, and its resumed calls are written whole."""
    with StandIn({"m": ["ACTION: D D D"]}) as server:
        course = _course(tmp_path, server, structured="off")
        db = tmp_path / "run.sqlite"
        status, out, err = run_cli("tournament", "llm:bot", "titfortat", "defect", "grudger",
                                   "--config", course, "--seed", "4", "--length", "2", "2",
                                   "--isolation", "process", "--format", "json", "--db", db)
        assert status == 0, err
        with sqlite3.connect(db) as connection:
            for table in ("llm_call", "llm_journal"):
                for column in ("prompt_tokens", "completion_tokens"):
                    connection.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
            connection.execute("ALTER TABLE llm_call DROP COLUMN structured")
            connection.execute("DELETE FROM llm_journal")   # so the later rounds are asked
            later = "(SELECT id FROM game WHERE round > 1)"
            connection.execute(f"DELETE FROM llm_call WHERE game IN {later}")
            connection.execute(f"DELETE FROM llm_turn WHERE game IN {later}")
        cut_back(db, 1)
        status, shown, err = run_cli("show", db, "--game", "1")
        assert status == 0, err
        status, resumed, err = run_cli("resume", db, "--format", "json", "--isolation",
                                       "process", cwd=tmp_path)
        assert status == 0, err
    with sqlite3.connect(db) as connection:
        later = connection.execute("SELECT count(*) FROM llm_call WHERE prompt_tokens IS NOT "
                                   "NULL").fetchone()[0]
    assert later > 0
    assert json.loads(resumed)["standings"] == json.loads(out)["standings"]


@given(st.one_of(_JSON, st.dictionaries(
    st.sampled_from(["prompt_tokens", "completion_tokens", "total_tokens"]),
    st.one_of(st.integers(), st.floats(), st.text(max_size=5), st.booleans(), st.none()),
    max_size=3).map(lambda usage: {"usage": usage})))
def test_a_servers_usage_is_two_counts_to_believe_or_none(data):
    from harness.agents.llm.server_answers import MAX_TOKENS, completion_usage

    for count in completion_usage(data):
        assert count is None or (type(count) is int and 0 <= count <= MAX_TOKENS)


# -- a refusal's body, read within bounds -----------------------------------------------------------
def test_a_refusal_is_read_from_the_first_bytes_of_its_body_only():
    from harness.agents.llm.forms import ERROR_BODY, is_refusal

    assert is_refusal(500, b'{"error": "response_format: json_schema is not supported"}')
    assert is_refusal(422, b'{"detail": [{"loc": ["body", "response_format", "type"]}]}')
    assert not is_refusal(500, b" " * ERROR_BODY + b"response_format")
    assert not is_refusal(503, b"response_format") and not is_refusal(401, b"response_format")


def test_an_error_body_that_never_ends_is_cut_at_the_deadline():
    """A 500 whose body drips for ever: the client reads it only as far as the call's
    deadline (it looks for the refused field's name there), then the turn is a timeout."""
    import threading

    from llm_server import drip, head

    with StandIn({"m": [Step(raw=drip(b"x", every=0.05,
                                      first=head(500, length=None)))]}) as server:
        finished: list = []
        player = threading.Thread(target=lambda: finished.append(
            _game(server, turns=1, timeout=1.0, retries=0)), daemon=True)
        player.start()
        player.join(60)
    assert finished, "the game did not end"
    fault = finished[0].fault_at["a", 0]
    assert fault.kind == "timeout"
