"""Which form of structured answer an endpoint takes, kept for the run.

A declaration's `structured` is `auto` (the default), one form (`json_schema`,
`json_object`) or `off`. `auto` starts with the strongest form and steps down
(answer_schema.FORMS) at a refusal: an answer of HTTP 400, 422 or 500 whose body names
`response_format` (what OpenAI-compatible servers send for a field they do not take:
llama-cpp-python's server answers 500 to `json_schema`, and takes `json_object` with a
`schema`). The request refused is sent again at once in the next form, within the same
call's deadline; the form found is kept for the endpoint and model in this process (a
forked worker inherits what its parent found, or finds it again the same way), and every
call records the form it was answered in (`llm_call.structured`).

The start-up check (client.check, the list of models) sends no probe: a probe would be a
model call, paid for in tokens on a hosted API, before every run, and the list of models
says nothing of the forms taken; the first turn's request is the probe, and its refusal
costs no tokens.

A named form is never stepped down from: its refusal is the turn's fault, which says so.
Whichever form a run ends in, the reading is the same for the same answer (parse.py), so
the same seed and the same recorded answers give the same result.
"""
from __future__ import annotations

import threading

from .answer_schema import AUTO, FORMS, OFF

REFUSING_STATUSES = (400, 422, 500)
ERROR_BODY = 16 * 1024        # bytes of a refusal's body read, to look for the field's name
_LOCK = threading.Lock()
_TAKEN: dict[tuple[str, str], str] = {}


def current(config) -> str:
    """The form the next request of `config`'s model is sent in."""
    if config.structured != AUTO:
        return config.structured
    with _LOCK:
        return _TAKEN.get((config.base_url, config.model), FORMS[0])


def candidates(config) -> tuple[str, ...]:
    """The forms an answer of this run may have been given in (the journal is searched in
    this order): the current one and those `auto` could still step down to."""
    form = current(config)
    return FORMS[FORMS.index(form):] if config.structured == AUTO else (form,)


def settle(config, form: str) -> None:
    """An answer came in `form` (from the server or the journal): keep it for the run."""
    if config.structured == AUTO:
        with _LOCK:
            _TAKEN[config.base_url, config.model] = form


def step_down(config, refused: str) -> str | None:
    """The form to send again in after `refused` was refused; None when there is none
    (a named form, or `off`). Two handles refused at once step down once."""
    if config.structured != AUTO or refused == OFF:
        return None
    with _LOCK:
        key = (config.base_url, config.model)
        taken = _TAKEN.get(key, FORMS[0])
        if FORMS.index(taken) <= FORMS.index(refused):
            taken = _TAKEN[key] = FORMS[FORMS.index(refused) + 1]
        return taken


def is_refusal(status: int, body: bytes) -> bool:
    """Whether an error answer refuses the request's response_format (its body names the
    field: a validation error's location, or the server's message)."""
    return status in REFUSING_STATUSES and b"response_format" in body[:ERROR_BODY]

