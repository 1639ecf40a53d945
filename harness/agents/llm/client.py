"""Asking a model: one chat completion through the `openai` client (imported here only),
with the model-call time limit, retries with backoff on 429, 5xx, timeouts and lost
connections, a cap on requests in flight, and the one check before the first game.

Model output is untrusted text: a response is cut to MAX_RESPONSE characters here, before
anything else sees it.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Any, NamedTuple

from harness.core.errors import HarnessError

from .config import LlmConfig

MAX_RESPONSE = 4000          # characters of one response kept (and parsed)
BACKOFF = 0.25               # seconds before the first retry; doubled each time, at most 8
_LOCK = threading.Lock()
_IN_FLIGHT: dict[str, threading.BoundedSemaphore] = {}
_CHECKED: set[tuple[str, str]] = set()


class Answer(NamedTuple):
    text: str | None          # the response (capped), or None when the call failed
    error: str | None         # why not: one line
    timed_out: bool           # the failure was the model-call time limit
    latency: float            # seconds, every try and wait included
    tries: int


class ModelClient:
    def __init__(self, config: LlmConfig):
        self.config = config
        self._client: Any = None
        self._pid = -1

    def _openai(self):
        """The client of this process (a forked worker makes its own: connections are not
        shared across a fork)."""
        if self._client is None or self._pid != os.getpid():
            try:
                import openai
            except ImportError:
                raise HarnessError("llm: agents need the openai package: pip install "
                                   "'pdharness[llm]'") from None
            config = self.config
            self._client = openai.OpenAI(base_url=config.base_url, api_key=_key(config),
                                         timeout=config.timeout, max_retries=0)
            self._pid = os.getpid()
        return self._client

    def check(self) -> None:
        """Once per endpoint and model, before the first game: the server answers and knows
        the model (when it lists its models), else one clear line."""
        config = self.config
        if (config.base_url, config.model) in _CHECKED:
            return
        client = self._openai()   # first: says how to install openai when it is missing
        import openai

        where = f"llm:{config.name}"
        try:
            ids = [model.id for model in client.models.list()]
        except openai.NotFoundError:
            ids = []           # a server without the list: the first call will tell
        except openai.AuthenticationError:
            raise HarnessError(f"{where}: {config.base_url} refused the API key (from "
                               f"{config.api_key_env or 'no variable: api_key_env'})") from None
        except openai.APITimeoutError:   # connected, then silence: not "cannot reach"
            raise HarnessError(f"{where}: {config.base_url} did not answer the list of models "
                               f"within {config.timeout:g} s (its timeout)") from None
        except openai.APIConnectionError:
            raise HarnessError(f"{where}: cannot reach {config.base_url} (is the server "
                               "running?)") from None
        except openai.APIStatusError as error:
            raise HarnessError(f"{where}: {config.base_url} answered HTTP "
                               f"{error.status_code} to the list of models") from None
        if ids and config.model not in ids:
            from harness.core.safe_text import line

            listed = ", ".join(sorted(ids)[:10]) + (", ..." if len(ids) > 10 else "")
            raise HarnessError(f"{where}: {config.base_url} has no model "
                               f"{config.model!r} (it has: {line(listed)})")
        _CHECKED.add((config.base_url, config.model))

    def complete(self, messages: list[dict]) -> Answer:
        import openai

        config = self.config
        began = time.monotonic()
        error, timed_out = "no answer", False
        for attempt in range(config.retries + 1):
            if attempt:
                time.sleep(min(8.0, BACKOFF * 2 ** (attempt - 1)))
            try:
                with _in_flight(config):
                    response = self._openai().chat.completions.create(
                        model=config.model, messages=messages, temperature=config.temperature,
                        max_tokens=config.max_tokens, timeout=config.timeout,
                        **({"seed": config.seed} if config.seed is not None else {}))
            except openai.APITimeoutError:
                error, timed_out = f"no answer within {config.timeout:g} s", True
                continue
            except openai.APIConnectionError:
                error, timed_out = "lost the connection to the server", False
                continue
            except openai.APIStatusError as failure:
                error, timed_out = f"HTTP {failure.status_code}", False
                if failure.status_code == 429 or failure.status_code >= 500:
                    continue
                break              # 400, 401, 404...: asking again would not help
            except (openai.OpenAIError, ValueError) as failure:   # a malformed response
                error, timed_out = f"unreadable response ({type(failure).__name__})", False
                break
            text = _text_of(response)
            if text is None:
                error, timed_out = "a response with no message", False
                break
            return Answer(text[:MAX_RESPONSE], None, False, time.monotonic() - began,
                          attempt + 1)
        return Answer(None, error, timed_out, time.monotonic() - began, attempt + 1)


def _text_of(response) -> str | None:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        return None
    return content if isinstance(content, str) else None


def _key(config: LlmConfig) -> str:
    """The API key from the variable the declaration names; local servers need none (the
    client wants a value: it is never the user's OPENAI_API_KEY unless named)."""
    if config.api_key_env is None:
        return "none"
    key = os.environ.get(config.api_key_env)
    if not key:
        raise HarnessError(f"llm:{config.name}: the environment variable "
                           f"{config.api_key_env} (api_key_env) is not set")
    return key


def _in_flight(config: LlmConfig) -> threading.BoundedSemaphore:
    with _LOCK:
        semaphore = _IN_FLIGHT.get(config.base_url)
        if semaphore is None:
            semaphore = _IN_FLIGHT[config.base_url] = threading.BoundedSemaphore(
                config.in_flight)
        return semaphore
