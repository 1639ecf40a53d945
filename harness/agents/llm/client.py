"""Asking a model: one chat completion from an OpenAI-compatible endpoint, within one
deadline for the whole call (the declaration's `timeout`: every try and backoff in it),
with retries with backoff on 429, 5xx and lost connections, a cap on requests in flight,
and the one check before the first game, bounded the same way.

A model's server is untrusted (harness/agents/llm/bounded_http.py reads it within a
deadline and a byte cap; server_answers.py checks what it sent), and so is the text of its
answer: a response is cut to MAX_RESPONSE characters here, before anything else sees it.
"""
from __future__ import annotations

import json
import os
import threading
import time
from typing import NamedTuple

from harness.core.errors import HarnessError
from harness.core.fault_policy import Event
from harness.core.package import __version__
from harness.core.safe_text import line

from .bounded_http import Call, ExchangeFailed, Failure, HttpAnswer, exchange
from .config import LlmConfig
from .forms import ERROR_BODY, is_refusal
from .server_answers import (
    Unreadable,
    Usage,
    completion_text,
    completion_usage,
    json_of,
    model_ids,
)

MAX_RESPONSE = 4000          # characters of one response kept (and parsed)
BACKOFF = 0.25               # seconds before the first retry; doubled each time, at most 8
_LOCK = threading.Lock()
_IN_FLIGHT: dict[tuple[int, str], threading.BoundedSemaphore] = {}
_CHECKED: set[tuple[str, str]] = set()


class Answer(NamedTuple):
    text: str | None          # the response (capped), or None when the call failed
    error: str | None         # why not: one line
    event: Event | None       # what the failure is to the fault policy (None: answered)
    latency: float            # seconds, every try and wait included
    tries: int
    usage: Usage = Usage(None, None)   # the tokens the server says it used (checked)
    refused: bool = False     # the server refused the request's response_format (forms.py)


class ModelClient:
    def __init__(self, config: LlmConfig):
        self.config = config

    def check(self) -> None:
        """Once per endpoint and model, before the first game: the server answers within
        the call's `timeout` and knows the model (when it lists its models), else one
        clear line."""
        config = self.config
        if (config.base_url, config.model) in _CHECKED:
            return
        where = f"llm:{config.name}: {line(config.base_url)}"
        try:
            answer = exchange(Call(config.timeout), "GET", _address(config, "models"),
                              _headers(config))
        except ExchangeFailed as failure:
            raise HarnessError(_unchecked(failure, config)) from None
        if answer.status == 401:
            raise HarnessError(f"{where} refused the API key (from "
                               f"{config.api_key_env or 'no variable: api_key_env'})")
        if answer.status != 404:   # 404: a server without the list; the first call will tell
            ids = _listed(answer, where)
            if ids and config.model not in ids:
                shown = ", ".join(line(name) for name in sorted(ids)[:10])
                raise HarnessError(f"{where} has no model {config.model!r} (it has "
                                   f"{len(ids)}: {shown}{', ...' if len(ids) > 10 else ''})")
        _CHECKED.add((config.base_url, config.model))

    def complete(self, messages: list[dict], call: Call | None = None,
                 response_format: dict | None = None) -> Answer:
        """The model's answer to `messages`, within `call` (a new one of `timeout`
        seconds if none is given; the caller may stop it), asked for in `response_format`
        (answer_schema.py; None: none asked). A refusal of that field is not retried: the
        answer says so (`refused`), for the caller to ask in another form."""
        config = self.config
        call = call or Call(config.timeout)
        began = time.monotonic()
        body = json.dumps({
            "model": config.model, "messages": messages, "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            **({"seed": config.seed} if config.seed is not None else {}),
            **({"response_format": response_format} if response_format else {})}).encode()
        tries = 0

        def failed(error: str, event: Event, refused: bool = False) -> Answer:
            return Answer(None, error, event, time.monotonic() - began, tries,
                          refused=refused)

        while True:
            tries += 1
            outcome = self._try(call, body, response_format is not None)
            if isinstance(outcome, _Answered):
                return Answer(outcome.text[:MAX_RESPONSE], None, None,
                              time.monotonic() - began, tries, outcome.usage)
            if isinstance(outcome, _Refused):
                return failed(f"HTTP {outcome.status}: the server refused the "
                              "response_format asked for", Event.RAISED, refused=True)
            reason, event, again = outcome
            if not again or tries > config.retries:
                return failed(reason, event)
            if not call.wait(min(8.0, BACKOFF * 2 ** (tries - 1))):
                # no time left for another try: the deadline passed waiting, or would
                return failed(reason if not call.over else
                              f"no answer within {config.timeout:g} s ({reason} before)",
                              Event.STOPPED if call.over else event)

    def _try(self, call: Call, body: bytes, formatted: bool) \
            -> _Answered | _Refused | tuple[str, Event, bool]:
        """One request: the answer, its refusal of the response_format (`formatted`: one
        was asked for), or (why not, the event, whether to try again)."""
        config = self.config
        semaphore = _in_flight(config)
        if not semaphore.acquire(timeout=max(0.0, call.remaining())):
            return f"no answer within {config.timeout:g} s (waited for a request in " \
                   "flight to this endpoint)", Event.STOPPED, False
        try:
            answer = exchange(call, "POST", _address(config, "chat/completions"),
                              {**_headers(config), "Content-Type": "application/json"},
                              body, error_body=ERROR_BODY if formatted else 0)
        except ExchangeFailed as failure:
            if failure.failure is Failure.TIMEOUT:
                return failure.reason, Event.STOPPED, False
            if failure.failure is Failure.INVALID:
                return f"unreadable response: {failure.reason}", Event.BAD_ANSWER, False
            return failure.reason, Event.RAISED, True      # unreachable, or lost
        finally:
            semaphore.release()
        if answer.status != 200:
            if formatted and is_refusal(answer.status, answer.body):
                return _Refused(answer.status)
            # 429 and 5xx may pass; 400, 401, 404...: asking again would not help
            return f"HTTP {answer.status}", Event.RAISED, \
                answer.status == 429 or answer.status >= 500
        try:
            data = json_of(answer.body, answer.content_type)
            return _Answered(completion_text(data), completion_usage(data))
        except Unreadable as unreadable:
            return f"unreadable response: {unreadable}", Event.BAD_ANSWER, False


class _Answered(NamedTuple):
    text: str
    usage: Usage


class _Refused(NamedTuple):
    status: int


def _unchecked(failure: ExchangeFailed, config: LlmConfig) -> str:
    """Why the list of models could not be had: one line."""
    url = line(config.base_url)
    if failure.failure is Failure.TIMEOUT:
        return f"llm:{config.name}: {url} did not answer the list of models within " \
               f"{config.timeout:g} s (its timeout)"
    if failure.failure is Failure.UNREACHABLE:
        return f"llm:{config.name}: cannot reach {url} ({line(failure.reason)[:200]}; is " \
               "the server running?)"
    return f"llm:{config.name}: {url} sent an unreadable list of models: {failure.reason}"


def _listed(answer: HttpAnswer, where: str) -> list[str]:
    if answer.status != 200:
        raise HarnessError(f"{where} answered HTTP {answer.status} to the list of models")
    try:
        return model_ids(json_of(answer.body, answer.content_type))
    except Unreadable as unreadable:
        raise HarnessError(f"{where} sent an unreadable list of models: {unreadable}") \
            from None


def _address(config: LlmConfig, endpoint: str) -> str:
    """`base_url` + `/endpoint`, the base's query (if any) kept."""
    base, _, query = config.base_url.partition("?")
    return f"{base.rstrip('/')}/{endpoint}" + (f"?{query}" if query else "")


def _headers(config: LlmConfig) -> dict[str, str]:
    key = _key(config)
    return {"Accept": "application/json", "User-Agent": f"pdharness/{__version__}",
            **({"Authorization": f"Bearer {key}"} if key is not None else {})}


def _key(config: LlmConfig) -> str | None:
    """The API key from the variable the declaration names; local servers need none (and
    it is never the user's OPENAI_API_KEY unless named)."""
    if config.api_key_env is None:
        return None
    key = os.environ.get(config.api_key_env)
    if not key:
        raise HarnessError(f"llm:{config.name}: the environment variable "
                           f"{config.api_key_env} (api_key_env) is not set")
    return key


def _in_flight(config: LlmConfig) -> threading.BoundedSemaphore:
    """The endpoint's cap in this process (a forked worker's own: a parent's, copied
    while its requests were in flight, would hold their places for ever)."""
    where = (os.getpid(), config.base_url)
    with _LOCK:
        semaphore = _IN_FLIGHT.get(where)
        if semaphore is None:
            semaphore = _IN_FLIGHT[where] = threading.BoundedSemaphore(config.in_flight)
        return semaphore
