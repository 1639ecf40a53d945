"""The hostile suite's model servers: a model agent's server is as untrusted as
agent code, so it is held to the host contract: a model call ends by one deadline
(`timeout`, every try and backoff in it) whatever the server does, at most a fixed number
of bytes is read from it (the start-up list of models included), and what it sends is
text to read, never to trust.

Each server here is the stand-in of tests/llm_server.py (127.0.0.1, a port the OS picks)
answering with raw bytes: it stalls (headers, then nothing), drips (a byte at a time, for
ever), floods (an endless or huge body) or lies (not JSON, JSON of the wrong shape, a
million choices, content that is not text, a Content-Length that lies, a compressed
body, broken HTTP). Each game is played on a thread joined with a generous bound, so a
server that holds the monitor fails the test instead of hanging it; a bound on memory is
a bound on the bytes the server managed to send (what the client read, plus the kernel's
socket buffers), never a measure of the process.
"""
from __future__ import annotations

import functools
import gzip
import json
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness.agents.llm.bounded_http import MAX_BODY, Call, ExchangeFailed, exchange
from harness.agents.llm.server_answers import (
    MAX_CONTAINERS,
    Unreadable,
    completion_text,
    json_of,
    model_ids,
)

from conftest import run_cli
from llm_server import StandIn, Step, answer, completion, drip, flood, head, stall
from test_llm import _course, _game

BOUND = 30.0                 # seconds a game with 1.5 s model calls must end well within
TIMEOUT = 1.5                # the model calls' deadline in the games that wait for it
ANSWERS_IN = 10.0            # ... in those whose server answers (or lies) at once
SLACK = 32 * 1024 * 1024     # bytes the kernel may hold in a loopback connection's buffers
CHOICE = json.loads(completion("D"))["choices"][0]


def _bounded_game(server, turns: int, retries: int = 0, timeout: float = TIMEOUT):
    """(the game, or None if it did not end within BOUND; seconds it took). A server that
    answers at once is given ANSWERS_IN: on a loaded machine even loopback can be slow."""
    done: dict = {}
    began = time.monotonic()
    thread = threading.Thread(daemon=True, target=lambda: done.update(
        game=_game(server, turns=turns, timeout=timeout, retries=retries)))
    thread.start()
    thread.join(BOUND)
    return done.get("game"), time.monotonic() - began


def _faults(game, turns: int) -> list[str]:
    return [game.fault_at["a", t].kind if ("a", t) in game.fault_at else "none"
            for t in range(turns)]


# -- stalls and drips: the deadline is the call's, not a read's ---------------------------------
HOLDERS = {
    "headers, then nothing": stall(),
    "half a body, then nothing": stall(b'{"choices": [{"message": {"cont'),
    "a Content-Length longer than the body, the connection held": answer(
        completion("D"), length=4000, then_hold=True),
    "the body a byte every 0.3 s": drip(completion("D"), every=0.3),
    "the status line and headers a byte every 0.3 s": drip(
        head(length=2000) + completion("D"), every=0.3, first=b""),
    "a chunked body of one-byte chunks, every 0.3 s": drip(
        b"1\r\n \r\n", every=0.3, first=head(extra=("Transfer-Encoding: chunked",))),
}


@pytest.mark.slow
@pytest.mark.parametrize("behaviour", sorted(HOLDERS))
def test_a_server_that_holds_the_call_is_a_timeout_by_the_deadline(behaviour):
    """The deadline is the call's: the try it ends is the last (3 retries allowed)."""
    with StandIn({"m": [Step(raw=HOLDERS[behaviour])]}) as server:
        game, took = _bounded_game(server, turns=4, retries=3)
        asked = len(server.calls())
    assert game is not None, f"the game did not end within {BOUND:g} s"
    assert took < BOUND
    assert _faults(game, 4) == ["timeout"] * 4   # three in a row, then not asked
    assert asked == 3
    assert [call["tries"] for t in range(3) for call in game.talk["a", t]["calls"]] == [1] * 3
    assert game.intended_b == ["C", "C", "C", "C"]   # titfortat played on against the default
    message = game.fault_at["a", 0].message
    assert message == f"model call failed: no answer within {TIMEOUT:g} s"


@pytest.mark.slow
def test_retries_and_their_backoff_are_inside_the_deadline():
    """Ten retries of a server that always says 503 would back off 48 s; the call's
    deadline ends them, and the fault is the server's error."""
    with StandIn({"m": [Step(status=503)]}) as server:
        done: dict = {}
        thread = threading.Thread(daemon=True, target=lambda: done.update(
            game=_game(server, turns=2, timeout=TIMEOUT, retries=10)))
        began = time.monotonic()
        thread.start()
        thread.join(BOUND)
        took = time.monotonic() - began
        asked = len(server.calls())
    game = done.get("game")
    assert game is not None and took < BOUND
    assert _faults(game, 2) == ["exception"] * 2
    assert "HTTP 503" in game.fault_at["a", 0].message
    assert 2 <= asked <= 2 * 11


def test_a_name_lookup_that_never_ends_is_a_timeout_by_the_deadline(monkeypatch):
    """A lookup cannot be stopped (a resolver that never answers): the call waits for it
    only until its deadline."""
    import socket

    from harness.agents.llm.client import ModelClient
    from harness.agents.llm.config import LlmConfig

    release = threading.Event()
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kw: release.wait(60) and [])
    client = ModelClient(LlmConfig("bot", "http://slow-resolver.invalid/v1", "m",
                                   timeout=TIMEOUT))
    began = time.monotonic()
    try:
        got = client.complete([{"role": "user", "content": "hi"}])
    finally:
        release.set()
    assert time.monotonic() - began < BOUND
    assert got.text is None and got.error == f"no answer within {TIMEOUT:g} s"


@pytest.mark.slow
def test_waiting_for_a_place_in_flight_is_inside_the_deadline():
    """Two models on one endpoint that takes one request at a time (`in_flight = 1`), its
    requests held: the model that waits for the place ends by its deadline too (today's
    main: 4 tries of 1.5 s each for the first, then as long for the second, each turn)."""
    from pathlib import Path

    from harness.agents.llm import client
    from harness.agents.llm.config import declared
    from harness.agents.specs import llm_spec
    from harness.core.rules import FlipParams, GameParams
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle

    with StandIn({"ma": [Step(raw=stall())], "mb": [Step(raw=stall())]}) as server:
        models = declared({"llm": {
            name: {"base_url": server.base_url, "model": model, "in_flight": 1,
                   "timeout": TIMEOUT, "retries": 3}
            for name, model in (("alice", "ma"), ("bob", "mb"))}}, Path("."), "test")
        client._IN_FLIGHT.clear()   # the cap is per endpoint and process: this test's own
        isolation = Isolation("none", 1.0)
        a, b = (open_handle(llm_spec(f"llm:{n}", models), isolation) for n in ("alice", "bob"))
        done: dict = {}
        began = time.monotonic()

        def play():
            done["game"] = play_game(a, b, 3, 3, GameParams(moves_per_turn=1,
                                                             flip=FlipParams(0.0, 0.0)))
        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        thread.join(BOUND)
        took = time.monotonic() - began
        a.close()
        b.close()
        client._IN_FLIGHT.clear()
    game = done.get("game")
    assert game is not None and took < BOUND
    messages = [game.fault_at[side, t].message for side in "ab" for t in range(3)]
    assert all(message.startswith("model call failed: no answer within 1.5 s")
               for message in messages)


# -- floods: a byte cap on everything read ------------------------------------------------------
ENDLESS_CONTENT = b'{"choices": [{"message": {"role": "assistant", "content": "'
FLOODS = {
    "an endless body, no length": flood(ENDLESS_CONTENT, b"C" * 65536),
    "200 MiB, its length said": flood(ENDLESS_CONTENT, b"C" * 65536, total=200 << 20,
                                      length=200 << 20),
    "200 MiB, a Content-Length that says 100": flood(ENDLESS_CONTENT, b"C" * 65536,
                                                     total=200 << 20, length=100),
    "an endless chunked body": flood(b"", b"10000\r\n" + b"C" * 65536 + b"\r\n",
                                     content_type="application/json\r\n"
                                                  "Transfer-Encoding: chunked"),
    "a million choices": flood(b'{"choices": [', (json.dumps(CHOICE) + ",").encode(),
                               total=200 << 20),
}


@pytest.mark.slow
@pytest.mark.parametrize("behaviour", sorted(FLOODS))
def test_a_flooding_server_is_read_up_to_the_cap_and_is_an_invalid_answer(behaviour):
    with StandIn({"m": [Step(raw=FLOODS[behaviour])]}) as server:
        game, took = _bounded_game(server, turns=2, timeout=ANSWERS_IN)
        sent = server.sent
    assert game is not None, f"the game did not end within {BOUND:g} s"
    assert _faults(game, 2) == ["invalid", "invalid"]
    assert game.fault_at["a", 0].message.startswith("model call failed: unreadable")
    assert sent < 2 * (MAX_BODY + SLACK)   # two calls' worth, not 200 MiB or more


# -- lies: what a server returns is text to read, never to trust ---------------------------------
@functools.lru_cache(maxsize=1)
def _gzip_bomb() -> bytes:
    """64 KiB that expand to a 64 MiB answer (built when first served: it takes a while)."""
    return gzip.compress(completion("D" * (64 << 20)), compresslevel=9)


def _choices(entries: bytes) -> bytes:
    return b'{"choices": [' + entries + b"]}"


LIES = {
    "HTML, not JSON": answer(completion("D"), content_type="text/html"),
    "no Content-Type": answer(completion("D"), content_type=None),
    "JSON cut short": answer(completion("D")[:30]),
    "not JSON at all": answer(b"<html>Bad gateway</html>"),
    "not UTF-8": answer(b'{"choices": "\xff\xfe"}'),
    "a list, not an object": answer(b"[]"),
    "choices that are text": answer(b'{"choices": "D"}'),
    "no choices": answer(b'{"choices": []}'),
    "a choice with no message": answer(_choices(b'{"text": "D"}')),
    "content that is a number": answer(completion(7)),
    "content that is a list": answer(completion(["D"])),
    "content that is null": answer(completion(None)),
    "a million empty choices": answer(_choices(b",".join([b"{}"] * 1_000_000))),
    "nesting 100000 deep": answer(b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    "a number of 100000 digits": answer(b'{"created": 1' + b"0" * 100_000 + b"}"),
    "a Content-Length longer than the body, then closed": answer(completion("D"),
                                                                 length=4000),
    "a Content-Length shorter than the body": answer(completion("D"), length=20),
    "a Content-Length of a terabyte": answer(completion("D"), length=10 ** 12),
    "gzip it was not asked for": answer(gzip.compress(completion("D")),
                                        extra=("Content-Encoding: gzip",)),
    "a gzip bomb": lambda writer: answer(_gzip_bomb(), extra=("Content-Encoding: gzip",))(
        writer),
    "a thousand headers": answer(completion("D"), extra=tuple(
        f"X-Junk-{n}: {n}" for n in range(1000))),
    "a header of a megabyte": answer(completion("D"), extra=("X-Junk: " + "j" * (1 << 20),)),
    "not HTTP": lambda writer: writer.write(b"SSH-2.0-OpenSSH_9.2\r\n\r\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("behaviour", sorted(LIES))
def test_a_lying_server_is_an_invalid_answer_and_the_game_goes_on(behaviour):
    if behaviour == "a gzip bomb":
        _gzip_bomb()    # built before the deadlines run: it takes seconds on a loaded machine
    with StandIn({"m": [Step(raw=LIES[behaviour])]}) as server:
        game, took = _bounded_game(server, turns=2, timeout=ANSWERS_IN)
    assert game is not None, f"the game did not end within {BOUND:g} s"
    assert _faults(game, 2) == ["invalid", "invalid"]
    message = game.fault_at["a", 0].message
    assert message.startswith("model call failed: unreadable response: ")
    assert len(message) < 200 and message.isprintable()   # nothing of the server's quoted
    assert game.intended_a == ["C", "C"] and len(game.intended_b) == 2


@pytest.mark.slow
def test_an_answer_of_control_characters_and_half_surrogates_is_recorded_and_shown_safely(
        tmp_path):
    """JSON can spell what no text holds (half a surrogate pair) and what a terminal obeys:
    the answer is played, recorded (the record's text is UTF-8) and shown escaped."""
    body = b'{"choices": [{"message": {"content": "D\\ud800 \\u0000\\u001b]0;owned\\u0007"}}]}'
    with StandIn({"m": [Step(raw=answer(body))]}) as server:
        course = _course(tmp_path, server, timeout=10)
        db, report = tmp_path / "run.sqlite", tmp_path / "report.html"
        status, out, err = run_cli("tournament", "llm:bot", "titfortat", "--config", course,
                                   "--length", "2", "2", "--moves-per-turn", "1", "--flip",
                                   "0", "0", "--isolation", "process", "--db", db,
                                   "--report", report, "--format", "json")
        assert status == 0, err
    faults = {row["agent"]: row["faults"] for row in json.loads(out)["standings"]}
    assert sum(faults["llm:bot"].values()) == 0
    status, shown, err = run_cli("show", db, "--game", "1")
    assert status == 0 and "\x1b" not in shown and "\x07" not in shown and "\x00" not in shown
    assert "answered: D\ufffd \\x00\\x1b]0;owned\\x07" in shown
    page = report.read_text()
    assert "\x1b" not in page and "\x07" not in page


def test_an_honest_answer_after_lies_is_played():
    """A lie costs its turn only: the next answer, a good one, is played."""
    with StandIn({"m": [Step(raw=LIES["HTML, not JSON"]), "D"]}) as server:
        game, _ = _bounded_game(server, turns=2, timeout=ANSWERS_IN)
    assert _faults(game, 2) == ["invalid", "none"] and game.intended_a == ["C", "D"]


# -- the start-up check, through the command line --------------------------------------------------
def _start(tmp_path, models, timeout: float = 2.0):
    """The tournament's start with a model whose server answers GET /models with `models`:
    (status, stderr, seconds)."""
    with StandIn({"m": ["C"]}, models=models) as server:
        course = _course(tmp_path, server, timeout=timeout)
        began = time.monotonic()
        status, out, err = run_cli("tournament", "llm:bot", "titfortat", "--config", course,
                                   "--isolation", "process", timeout=120)
        took = time.monotonic() - began
        assert not server.calls()        # nothing was played
    assert status == 2 and out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert "\x1b" not in err and "\x07" not in err
    return lines[-1], took, server.sent


MODEL_LIST = b'{"object": "list", "data": ['


@pytest.mark.slow
@pytest.mark.parametrize("behaviour", ["accepts and says nothing", "headers, then nothing",
                                       "drips the list"])
def test_a_list_of_models_that_never_comes_is_a_timeout_line(tmp_path, behaviour):
    models = {"accepts and says nothing": lambda writer: writer.hold(),
              "headers, then nothing": stall(),
              "drips the list": drip(MODEL_LIST + b'{"id": "m"}]}', every=0.3)}[behaviour]
    last, took, _ = _start(tmp_path, models)
    assert "did not answer the list of models within 2 s" in last
    assert "cannot reach" not in last
    assert took < BOUND + 10         # the interpreter's start on a loaded machine


@pytest.mark.slow
def test_a_list_of_a_million_models_is_read_up_to_the_cap(tmp_path):
    entry = b'{"id": "model-with-a-long-name-000000", "object": "model", "owned_by": "x"},'
    last, took, sent = _start(tmp_path, flood(MODEL_LIST, entry, total=80 << 20))
    assert "unreadable list of models" in last and "more than 4 MiB" in last
    assert sent < MAX_BODY + SLACK


@pytest.mark.slow
@pytest.mark.parametrize("body, problem", [
    (b"<html>hello</html>", "not JSON"),
    (b'{"data": "m"}', "no list of models"),
    (b'{"data": [{"id": 7}, {"id": null}]}', "without a name"),
    (b'{"data": [' + b"{}," * MAX_CONTAINERS + b"{}]}", "JSON objects and lists"),
])
def test_a_list_of_models_that_lies_is_one_line(tmp_path, body, problem):
    last, _, _ = _start(tmp_path, answer(body, content_type="text/html" if b"<" in body
                                         else "application/json"))
    assert "unreadable list of models" in last and problem in last


@pytest.mark.slow
def test_the_names_a_server_lists_are_printed_safely_and_briefly(tmp_path):
    names = ["\x1b]0;owned\x07title", "\x1b[2J\x1b[31mred", "\u202eevil", "n" * 1_000_000,
             *(f"model-{k}" for k in range(50))]
    body = json.dumps({"data": [{"id": name} for name in names]}).encode()
    last, _, _ = _start(tmp_path, answer(body))
    assert "has no model 'm'" in last and "it has 54:" in last
    assert "\\x1b]0;owned\\x07title" in last and "\u202e" not in last
    assert len(last) < 3000                 # a million-character name shown cut


# -- the whole tournament goes on -------------------------------------------------------------------
@pytest.mark.slow
def test_a_tournament_with_a_dripping_model_finishes_with_its_faults(tmp_path):
    with StandIn({"m": [Step(raw=drip(completion("D"), every=0.3))]}) as server:
        course = _course(tmp_path, server, timeout=TIMEOUT, retries=1)
        began = time.monotonic()
        status, out, err = run_cli("tournament", "llm:bot", "titfortat", "defect",
                                   "--config", course, "--length", "4", "4", "--max-rounds",
                                   "1", "--seed", "5", "--isolation", "process", "--jobs",
                                   "2", "--format", "json", timeout=180)
        took = time.monotonic() - began
    assert status == 0, err
    result = json.loads(out)
    faults = {row["agent"]: row["faults"] for row in result["standings"]}
    assert faults["llm:bot"]["timeout"] == 2 * 4      # two games of 4 turns, each a timeout
    assert faults["titfortat"] == faults["defect"] == {
        "invalid": 0, "exception": 0, "timeout": 0, "crash": 0}
    assert took < 3 * BOUND


# -- https: certificates checked, and the deadline holds through TLS too ---------------------------
@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1: (certificate file, key file)."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl (the command) makes the test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


@pytest.fixture
def trusting(monkeypatch, certificate):
    """The client trusts the test certificate (SSL_CERT_FILE), in a fresh TLS context."""
    from harness.agents.llm import bounded_http

    monkeypatch.setenv("SSL_CERT_FILE", certificate[0])
    monkeypatch.setattr(bounded_http, "_TLS", [])
    return certificate


def test_a_model_over_https_answers_and_a_dripping_one_ends_by_the_deadline(trusting):
    with StandIn({"m": ["D"]}, tls=trusting) as server:
        assert server.base_url.startswith("https://")
        game, _ = _bounded_game(server, turns=2, timeout=ANSWERS_IN)
    assert game.intended_a == ["D", "D"] and not game.fault_at
    with StandIn({"m": [Step(raw=drip(completion("D"), every=0.3))]}, tls=trusting) as server:
        game, took = _bounded_game(server, turns=4, retries=3)
    assert game is not None and took < BOUND
    assert _faults(game, 4) == ["timeout"] * 4


@pytest.mark.slow
def test_an_untrusted_certificate_is_one_line_at_the_start(tmp_path, monkeypatch, certificate):
    from harness.agents.llm import bounded_http

    monkeypatch.setattr(bounded_http, "_TLS", [])
    with StandIn({"m": ["D"]}, tls=certificate) as server:
        course = _course(tmp_path, server, timeout=5)
        status, out, err = run_cli("tournament", "llm:bot", "titfortat", "--config", course,
                                   "--isolation", "process", timeout=120)
    assert status == 2 and "Traceback" not in err
    assert "cannot reach" in err and "CERTIFICATE_VERIFY_FAILED" in err


def test_a_tls_handshake_that_never_ends_is_a_timeout_at_the_start(trusting):
    """A server that takes the connection and never answers the TLS hello."""
    import socket

    from harness.agents.llm.client import ModelClient
    from harness.agents.llm.config import LlmConfig
    from harness.core.errors import HarnessError

    listener = socket.create_server(("127.0.0.1", 0))
    held: list = []
    threading.Thread(target=lambda: held.append(listener.accept()), daemon=True).start()
    port = listener.getsockname()[1]
    client = ModelClient(LlmConfig("bot", f"https://127.0.0.1:{port}/v1", "m", timeout=TIMEOUT))
    began = time.monotonic()
    try:
        with pytest.raises(HarnessError, match="did not answer the list of models within 1.5 s"):
            client.check()
    finally:
        listener.close()
    assert time.monotonic() - began < BOUND and held


# -- proxies, from the environment ---------------------------------------------------------------
def test_requests_go_through_the_environments_proxy_unless_no_proxy_says(monkeypatch):
    """The stand-in is the proxy: a model at a host that does not exist is reached through
    it (sent the whole address), and a host no_proxy names is not proxied."""
    from harness.agents.llm.client import ModelClient
    from harness.agents.llm.config import LlmConfig

    with StandIn({"m": ["D"]}) as proxy:
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.server.server_address[1]}")
        monkeypatch.setenv("no_proxy", "direct.invalid")
        proxied = ModelClient(LlmConfig("bot", "http://model.invalid/v1", "m", timeout=10))
        got = proxied.complete([{"role": "user", "content": "hi"}])
        direct = ModelClient(LlmConfig("bot", "http://direct.invalid/v1", "m", timeout=10))
        missed = direct.complete([{"role": "user", "content": "hi"}])
        targets = list(proxy.targets)
    assert got.text == "D" and targets == ["http://model.invalid/v1/chat/completions"]
    assert missed.text is None                         # no such host: not proxied


# -- the readers, for any input ---------------------------------------------------------------------
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["choices", "message", "content", "data", "id", "x"]) | st.text(),
        inner, max_size=4), max_leaves=20)


@settings(max_examples=300)
@given(st.one_of(st.binary(max_size=300), JSON_VALUES.map(lambda v: json.dumps(v).encode()),
                 # the shapes that broke readers before: deep nesting, huge numbers
                 st.integers(1, 200_000).map(lambda n: b'{"choices": ' + b"[" * n),
                 st.integers(1, 20_000).map(lambda n: b'{"choices": [1' + b"0" * n + b"]}")),
       st.sampled_from(["application/json", "application/json; charset=utf-8", "text/html",
                        None]))
def test_a_servers_body_is_text_or_one_reason(body, content_type):
    for reader in (completion_text, model_ids):
        try:
            value = reader(json_of(body, content_type))
        except Unreadable as reason:
            assert str(reason) and str(reason).isprintable() and len(str(reason)) < 100
        else:
            assert isinstance(value, str) or all(isinstance(name, str) for name in value)


@pytest.fixture(scope="module")
def raw_server():
    """One stand-in for every example (a stand-in takes half a second to shut down)."""
    with StandIn({}) as server:
        yield server


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400) | st.builds(
    lambda status, lines, body: f"HTTP/1.1 {status} X\r\n".encode() + lines + b"\r\n" + body,
    st.integers(100, 999), st.binary(max_size=200), st.binary(max_size=200)))
def test_any_bytes_from_a_server_end_in_an_answer_or_one_failure_in_time(raw_server, data):
    """Whatever bytes a server sends and closes on, the exchange ends, within its
    deadline, in an answer (the body read only for a 200) or one ExchangeFailed."""
    raw_server.models = lambda writer: writer.write(data)
    call = Call(5.0)
    try:
        got = exchange(call, "GET", raw_server.base_url + "/models", {})
    except ExchangeFailed as failure:
        assert failure.reason and failure.reason.isprintable()
    else:
        assert 100 <= got.status <= 999 and len(got.body) <= MAX_BODY
        assert got.status == 200 or got.body == b""
    assert call.remaining() > 0


def test_a_journal_row_is_read_bounded_and_checked(tmp_path):
    """A record is a file anyone may have edited: its journal's answer is read at most
    `longest` characters long, and a row whose values are not of their kinds is no answer
    (the model is asked again)."""
    import sqlite3

    from harness.agents.llm import journal

    path = tmp_path / "run.sqlite"
    journal.use(path)
    try:
        journal.store("k", "D", 0.5, 1, 120, 7)
        into = "INSERT INTO llm_journal (key, response, latency, tries"
        with sqlite3.connect(path) as connection:
            connection.execute(f"{into}) VALUES ('long', ?, 0.1, 1)", ("C" * 5_000_000,))
            connection.execute(f"{into}) VALUES ('bad', 'D', 'soon', 1)")
            connection.execute(f"{into}) VALUES ('blob', ?, 0.1, 1)", (b"D",))
            connection.execute(f"{into}, prompt_tokens, completion_tokens) VALUES "
                               "('tokens', 'D', 0.1, 1, -5, 'many')")
        assert journal.lookup("k", 4000) == ("D", 0.5, 1, 120, 7)
        assert journal.lookup("long", 4000) == ("C" * 4000, 0.1, 1, None, None)
        assert journal.lookup("bad", 4000) is None and journal.lookup("blob", 4000) is None
        # counts out of range are no counts; the answer stands
        assert journal.lookup("tokens", 4000) == ("D", 0.1, 1, None, None)
    finally:
        journal.use(None)
