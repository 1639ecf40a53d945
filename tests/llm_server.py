"""A scripted stand-in for an OpenAI-compatible server (the kind Ollama, vLLM and hosted
APIs serve), for the language-model agent's tests: a threaded http.server on 127.0.0.1, on
a port the OS picks, and no other address ever.

Each model has a script: a list of steps, one per chat-completion request, in order; the
last step repeats. A step is the answer's text, or a `Step` (an HTTP status, a delay, or
a `raw` answer), or a function of the request's messages returning either.

Each stand-in is of a server family (`family`), which takes or refuses a request's
`response_format` the way the real ones do: "openai" (OpenAI, vLLM, Ollama:
takes `json_schema`, and `json_object`), "llama_cpp" (llama-cpp-python's server: takes
`json_object` with a `schema`, answers 500 naming response_format to `json_schema`),
"prose" (a server that takes no response_format: 400 naming it) and "ignores" (takes
anything, and holds the model to nothing). A `Small` step is a small model: under a
schema its server took, it answers valid JSON (the schema's number of moves); else its
prose, which no parse rule reads. Every answer says its `usage` (`Step.usage` to lie).

A raw answer is a hostile server's (the hostile suite, tests/test_hostile_servers.py): it
writes the bytes of the whole answer itself, HTTP status line and headers included, and
may stall, drip, flood or lie (`stall`, `drip`, `flood`, `answer` below). The list of
models can be raw too (`StandIn(models=...)`). Every byte a raw answer manages to write
is counted (`StandIn.sent`): how much a client read, give or take the kernel's buffers."""
from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Step:
    text: str = ""
    status: int = 200
    delay: float = 0.0
    raw: Callable | None = None     # raw(writer): the whole answer, written by a hostile server
    usage: object = "counted"       # the answer's usage: "counted" (from the request), or as given


@dataclass(frozen=True)
class Small:
    """A small model: `moves` (cycled) in JSON when its server holds it to a schema, else
    `prose`."""
    prose: str = "I think I will cooperate with the other player this time."
    moves: str = "D"
    chat: str = "Let us cooperate."


FAMILIES = ("openai", "llama_cpp", "prose", "ignores")


def refusal(family: str, response_format) -> int | None:
    """The status a family answers a request's response_format with, or None: taken."""
    if response_format is None or family == "ignores":
        return None
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if family == "openai":
        return None if kind in ("json_schema", "json_object", "text") else 400
    if family == "llama_cpp":
        return None if kind in ("json_object", "text") else 500
    return 400   # prose: no such field


def constrained(small: Small, response_format) -> str:
    """What a grammar lets a small model write: JSON under the schema sent."""
    schema = response_format.get("schema") or response_format["json_schema"]["schema"]
    k = schema["properties"]["moves"]["minItems"]
    moves = (small.moves * k)[:k]
    said = {"chat": small.chat} if "chat" in schema["properties"] else {}
    return json.dumps({**said, "moves": list(moves)})


def counted(body: dict, text: str) -> dict:
    """The usage a stand-in says: about four characters a token, as a tokenizer counts."""
    asked = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1
    answered = len(text) // 4 + 1
    return {"prompt_tokens": asked, "completion_tokens": answered,
            "total_tokens": asked + answered}


class Writer:
    """What a raw answer writes with: counted bytes, and whether to stop (the stand-in is
    closing, or the client has gone)."""

    def __init__(self, stand_in: StandIn, handler):
        self.stand_in, self.handler = stand_in, handler

    def write(self, data: bytes) -> bool:
        """False once the client has gone or the stand-in closes: stop writing."""
        if self.stand_in.closing.is_set():
            return False
        try:
            self.handler.wfile.write(data)
            self.handler.wfile.flush()
        except OSError:
            return False
        with self.stand_in.lock:
            self.stand_in.sent += len(data)
        return True

    def hold(self, seconds: float = 120.0) -> None:
        """Keep the connection open, saying nothing, until the stand-in closes."""
        self.stand_in.closing.wait(seconds)


def head(status: int = 200, content_type: str | None = "application/json",
         length: int | None = None, extra: tuple[str, ...] = ()) -> bytes:
    lines = [f"HTTP/1.1 {status} OK"]
    if content_type is not None:
        lines.append(f"Content-Type: {content_type}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join([*lines, *extra]) + "\r\n\r\n").encode("latin-1")


def completion(text) -> bytes:
    """A chat completion's JSON whose first choice's content is `text` (any JSON value)."""
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}]}
                      ).encode()


def stall(data: bytes = b"") -> Callable:
    """The headers of a 1000-byte answer (and `data`), then nothing, the connection open."""
    def raw(writer: Writer) -> None:
        if writer.write(head(length=1000) + data):
            writer.hold()
    return raw


def drip(data: bytes, every: float = 1.0, first: bytes | None = None) -> Callable:
    """`first` at once (default: the headers of an answer with no length), then `data` a
    byte at a time, one every `every` seconds, over and over, for ever."""
    def raw(writer: Writer) -> None:
        if not writer.write(head() if first is None else first):
            return
        while True:
            for byte in data:
                if not writer.write(bytes([byte])) or writer.stand_in.closing.wait(every):
                    return
    return raw


def flood(start: bytes, piece: bytes, total: int | None = None,
          length: int | None = None, content_type: str = "application/json") -> Callable:
    """The headers, `start`, then `piece` again and again up to `total` bytes in all (None:
    for ever); `length` is the Content-Length said (None: none, the end is the close)."""
    def raw(writer: Writer) -> None:
        if not writer.write(head(content_type=content_type, length=length) + start):
            return
        written = len(start)
        while total is None or written < total:
            if not writer.write(piece):
                return
            written += len(piece)
    return raw


def answer(body: bytes, content_type: str | None = "application/json",
           length: int | None = -1, extra: tuple[str, ...] = (), then_hold=False) -> Callable:
    """A whole answer of `body`, with a Content-Length of `length` (-1: the true one;
    None: none), then the connection closed (or held open, saying nothing)."""
    def raw(writer: Writer) -> None:
        said = len(body) if length == -1 else length
        if writer.write(head(content_type=content_type, length=said, extra=extra) + body) \
                and then_hold:
            writer.hold()
    return raw


class StandIn:
    def __init__(self, scripts: dict, list_models: bool = True, models: Callable | None = None,
                 tls: tuple[str, str] | None = None, family: str = "openai"):
        assert family in FAMILIES
        self.family = family
        self.usages: list[dict] = []     # the usage of every answer sent, in order
        self.scripts = {model: list(steps) for model, steps in scripts.items()}
        self.list_models = list_models
        self.models = models             # a raw answer to GET /models, if not the list
        self.requests: list[dict] = []   # the JSON bodies of every chat request, in order
        self.keys: list[str] = []        # the Authorization header of every request
        self.sent = 0                    # bytes written by raw answers
        self.targets: list[str] = []     # the request target of every request
        self.closing = threading.Event()
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.scheme = "http"
        if tls is not None:   # (certificate file, key file): https, the handshake per request
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True,
                                                     do_handshake_on_connect=False)
            self.scheme = "https"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.closing.set()               # raw answers still writing or holding stop
        self.server.shutdown()
        self.server.server_close()

    def calls(self, model: str | None = None) -> list[dict]:
        with self.lock:
            return [r for r in self.requests if model is None or r.get("model") == model]

    def _next(self, body: dict) -> Step:
        with self.lock:
            self.requests.append(body)
            steps = self.scripts.get(body.get("model"), ["C"])
            step = steps.pop(0) if len(steps) > 1 else steps[0]
        if callable(step):
            step = step(body.get("messages", []))
        return Step(step) if isinstance(step, (str, Small)) else step

    def _handler(self):
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _endpoint(self) -> str:
                """The request's path; a proxy is sent the whole address (kept in
                `targets`), which it serves too."""
                with stand_in.lock:
                    stand_in.targets.append(self.path)
                return urllib.parse.urlsplit(self.path).path.rstrip("/")

            def do_GET(self):
                endpoint = self._endpoint()
                if endpoint == "/v1/models" and stand_in.models is not None:
                    stand_in.models(Writer(stand_in, self))
                    self.close_connection = True
                elif endpoint == "/v1/models" and stand_in.list_models:
                    self._send(200, {"object": "list", "data": [
                        {"id": model, "object": "model", "created": 0, "owned_by": "test"}
                        for model in stand_in.scripts]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self._endpoint() != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                with stand_in.lock:
                    stand_in.keys.append(self.headers.get("Authorization", ""))
                refused = refusal(stand_in.family, body.get("response_format"))
                if refused is not None:   # as the family's server says it: naming the field
                    with stand_in.lock:
                        stand_in.requests.append(body)
                    self._send(refused, {"error": {
                        "message": "unsupported value for response_format", "type":
                        "invalid_request_error", "param": "response_format"}})
                    return
                step = stand_in._next(body)
                if isinstance(step.text, Small):
                    taken = body.get("response_format")
                    step = Step(constrained(step.text, taken)
                                if taken is not None and stand_in.family != "ignores"
                                else step.text.prose, usage=step.usage)
                if step.delay:
                    time.sleep(step.delay)
                if step.raw is not None:
                    step.raw(Writer(stand_in, self))
                    self.close_connection = True
                    return
                if step.status != 200:
                    self._send(step.status, {"error": {"message": f"scripted {step.status}",
                                                       "type": "scripted"}})
                    return
                usage = counted(body, step.text) if step.usage == "counted" else step.usage
                with stand_in.lock:
                    stand_in.usages.append(usage)
                try:
                    self._send(200, {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                        "model": body.get("model"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": step.text}}],
                        **({"usage": usage} if usage is not None else {})})
                except (BrokenPipeError, ConnectionResetError):
                    pass   # the client gave up (the model-call time limit)

        return Handler
