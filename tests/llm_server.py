"""A scripted stand-in for an OpenAI-compatible server (the kind Ollama, vLLM and hosted
APIs serve), for the language-model agent's tests: a threaded http.server on 127.0.0.1, on
a port the OS picks, and no other address ever.

Each model has a script: a list of steps, one per chat-completion request, in order; the
last step repeats. A step is the answer's text, or a `Step` (an HTTP status, a delay), or a
function of the request's messages returning either."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Step:
    text: str = ""
    status: int = 200
    delay: float = 0.0


class StandIn:
    def __init__(self, scripts: dict, list_models: bool = True):
        self.scripts = {model: list(steps) for model, steps in scripts.items()}
        self.list_models = list_models
        self.requests: list[dict] = []   # the JSON bodies of every chat request, in order
        self.keys: list[str] = []        # the Authorization header of every request
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
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
        return Step(step) if isinstance(step, str) else step

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

            def do_GET(self):
                if self.path.rstrip("/") == "/v1/models" and stand_in.list_models:
                    self._send(200, {"object": "list", "data": [
                        {"id": model, "object": "model", "created": 0, "owned_by": "test"}
                        for model in stand_in.scripts]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                with stand_in.lock:
                    stand_in.keys.append(self.headers.get("Authorization", ""))
                step = stand_in._next(body)
                if step.delay:
                    time.sleep(step.delay)
                if step.status != 200:
                    self._send(step.status, {"error": {"message": f"scripted {step.status}",
                                                       "type": "scripted"}})
                    return
                try:
                    self._send(200, {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                        "model": body.get("model"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": step.text}}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                  "total_tokens": 2}})
                except (BrokenPipeError, ConnectionResetError):
                    pass   # the client gave up (the model-call time limit)

        return Handler
