"""A language-model agent as an agent handle.

It is trusted code of ours (not student code) that talks to a network endpoint, so it
runs in the monitor's process (or a forked worker) in every isolation mode: the sandbox
has no network, and nothing of the model's runs anywhere; its answers are only read, as
untrusted text, by the parse rule (harness/agents/llm/parse.py).

Each request runs on a thread of its own and signals a pipe when done, so a runner that
waits on many games at once (harness/engine/runners.py) goes on with other games while a model
thinks. The student per-call time limit does not apply to it; the model-call limit does
(`timeout` of the declaration: one deadline for each model call, every HTTP try and
backoff in it), and this handle enforces it: past a call's deadline the runner collects,
the call is stopped (its connection shut down, so the thread ends at once) and the turn is
a `timeout` fault (three in a row and the game stops asking, as for any agent). Nothing
here waits on a model past that deadline and a short grace.

A turn's request asks for a structured answer in the form the endpoint takes
(harness/agents/llm/forms.py: `auto` steps down at a refusal and sends the turn again in
the next form, within the same deadline), and its messages are written for that form
(the framing's example, the answer's format, the corrections), so they are rebuilt when
the form changes. The journal is searched in every form the run may have answered in, so
a resumed run asks nothing it was answered, not even which form the server takes.
"""
from __future__ import annotations

import os
import select
import threading
import time
from typing import NamedTuple

from harness.agents.llm import forms, journal, prompts
from harness.agents.llm.answer_schema import response_format
from harness.agents.llm.bounded_http import Call
from harness.agents.llm.client import MAX_RESPONSE, Answer, ModelClient
from harness.agents.llm.config import LlmConfig
from harness.agents.llm.parse import MAX_CHAT, chat_problem, read_answer
from harness.agents.llm.server_answers import Usage
from harness.core.fault_policy import FAULT_POLICY, Event
from harness.core.rules import Scorer
from harness.isolation.descriptors import close_held
from harness.isolation.handles.agent_handle import Chatter, Fault, GameStart, Last, Reply

PARSE_RETRIES = 2            # corrective prompts after an answer that cannot be read
_POLL_AGAIN = 0.5            # seconds: how long a runner waits before looking again
# seconds a stopped call's thread is given to end: its socket shut down, it ends at once
# unless stuck where no stop reaches (a name lookup): then the turn ends without it
_GRACE = 5.0


class _Turn:
    """One turn's asking, on its thread: the model call in progress (whose deadline the
    handle enforces) and, when done, the reply. The thread writes only here, so a turn
    given up on cannot touch the next one."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.done = threading.Event()
        self.reply: Reply | None = None
        self.thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._call: Call | None = None
        self._stopped = False

    def begin_call(self) -> Call | None:
        """The deadline of the model call the thread is about to make; None: stopped."""
        with self._lock:
            self._call = None if self._stopped else Call(self.timeout)
            return self._call

    def end_call(self) -> None:
        with self._lock:
            self._call = None

    def deadline(self) -> float | None:
        call = self._call
        return None if call is None else call.deadline

    def stop(self, only_if_late: bool = False) -> bool:
        """Stop the turn: its call in progress ends now and no other begins. With
        `only_if_late`, only when a call is in progress past its deadline. True: stopped."""
        with self._lock:
            call = self._call
            if only_if_late and (call is None or call.remaining() > 0):
                return False
            self._stopped = True
        if call is not None:
            call.stop()
        return True


class LlmHandle(Chatter):
    printed = None   # it prints nothing of the agent's: the model's words are its talk

    def __init__(self, name: str, config: LlmConfig, client: ModelClient | None = None):
        self.name = name
        self.config = config
        self.chats = config.chat
        self.client = client or ModelClient(config)
        self.client.check()   # once per endpoint and model: before the first game
        self._read_fd, self._write_fd = os.pipe()   # after the check, which may refuse
        self._turn: _Turn | None = None
        self._lock = threading.Lock()    # close() against the end of a turn's thread
        self._closed = False
        self._asking = 0                 # turn threads not ended (the last closes the pipe)
        self._first: bool | None = None
        self._heard: str | None = None

    # -- PollableHandle --------------------------------------------------------------------
    # `deadline` is when a runner must look again: the deadline of the model call in
    # progress (then collect() stops it), else soon; set each time it asks what to wait on
    deadline = 0.0

    def waiting_on(self) -> dict[int, int]:
        turn = self._turn
        if turn is None or turn.done.is_set():
            return {}
        now = time.monotonic()
        deadline = turn.deadline()
        if deadline is not None and deadline <= now:
            return {}                  # late: collect() stops it
        self.deadline = deadline if deadline is not None else now + _POLL_AGAIN
        return {self._read_fd: select.POLLIN}

    def pump(self, fd: int, events: int) -> None:
        pass                           # collect() reads the pipe

    def captured_output(self) -> str:
        return ""

    def fork_child(self) -> bool:
        """A forked worker gets a pipe of its own (the client makes its own connections)."""
        close_held(self, "_read_fd", "_write_fd")
        self._read_fd, self._write_fd = os.pipe()
        self._turn, self._asking = None, 0    # a parent's threads are not in the child
        return True

    def close(self) -> None:
        """Never waits for a model (Ctrl-C closes handles mid-call): a turn still asking
        is stopped, and its thread closes the pipe when it ends."""
        with self._lock:
            self._closed = True
            asking = self._asking
        if self._turn is not None:
            self._turn.stop()
        if not asking:
            self._close_pipe()

    def _close_pipe(self) -> None:
        close_held(self, "_read_fd", "_write_fd")

    # -- AgentHandle -----------------------------------------------------------------------
    def start_game(self, start: GameStart) -> None:
        self.agent_seed = start.agent_seed   # which game this is (the journal's key)
        self.per_turn = start.moves_per_turn
        self.payoffs = start.payoffs
        self.scorer = Scorer(start.payoffs)
        self.history: list[tuple[str, str, int, int]] = []
        self.score = (0, 0)

    def talk_turn(self, first: bool, heard: str | None) -> None:
        self._first, self._heard = first, heard

    def request(self, last: Last) -> None:
        if last is not None:
            got, gave = self.scorer(last[0], last[1])
            self.history.append((last[0], last[1], got, gave))
            self.score = (self.score[0] + got, self.score[1] + gave)
        question = _Question(len(self.history) + 1, tuple(self.history), self.score,
                             self._first is not None, self._heard, bool(self._first),
                             self._first)
        self._first = self._heard = None
        turn = self._turn = _Turn(self.config.timeout)
        turn.thread = threading.Thread(target=self._ask, args=(turn, question),
                                       name=f"llm {self.name}", daemon=True)
        with self._lock:
            self._asking += 1
        turn.thread.start()

    def collect(self) -> Reply:
        turn, self._turn = self._turn, None
        reply = None if turn is None else self._finish(turn)
        if reply is None:
            reply = Reply(None, Fault(FAULT_POLICY.kind(Event.RAISED), "no answer"))
        self._last_talk = reply.talk
        return reply

    def said(self) -> str | None:
        return None if self._last_talk is None else self._last_talk.get("shown")

    def end_game(self) -> None:
        if self._turn is not None:
            self.collect()

    # -- the turn, on its own thread -------------------------------------------------------
    _last_talk: dict | None = None

    def _finish(self, turn: _Turn) -> Reply | None:
        """The turn's reply, waiting at most until its model call's deadline: then the
        call is stopped and, unless its thread ends within the grace, the turn is a
        timeout here and now."""
        while not turn.done.is_set():
            deadline = turn.deadline()
            wait = _POLL_AGAIN if deadline is None else deadline - time.monotonic()
            if turn.done.wait(max(0.0, wait)):
                break
            if turn.stop(only_if_late=True):
                if not turn.done.wait(_GRACE):
                    return Reply(None, Fault(FAULT_POLICY.kind(Event.STOPPED),
                                             f"model call failed: no answer within "
                                             f"{self.config.timeout:g} s"))
                break
        try:
            os.read(self._read_fd, 64)
        except OSError:
            pass
        return turn.reply

    def _messages(self, question: _Question, form: str, tried) -> list[dict]:
        """The turn's conversation as sent in `form`: the framing (its example in that
        form), the turn's message, then each answer that could not be read and its
        correction (`tried`: (answer, why) pairs)."""
        chatting = question.chatting
        messages = [{"role": "system", "content": prompts.system_prompt(
                        self.config.framing_text, self.payoffs, self.per_turn, chatting, form)},
                    {"role": "user", "content": prompts.turn_message(
                        question.number, question.history, question.score, self.per_turn,
                        chatting, question.heard, question.speaks_first, form)}]
        for text, reason in tried:
            messages += [{"role": "assistant", "content": text},
                         {"role": "user", "content": prompts.corrective_message(
                             reason, self.per_turn, chatting, form)}]
        return messages

    def _answer(self, turn: _Turn, question: _Question, attempt: int, tried) -> _Asked:
        """The journal's answer to this very question (a resumed run: in any form the run
        may have been answered in), else the server's, in the form it takes (forms.py)."""
        config = self.config
        for form in forms.candidates(config):
            messages = self._messages(question, form, tried)
            found = journal.lookup(journal.key(self.name, self.agent_seed, question.number,
                                               attempt, messages, form), MAX_RESPONSE)
            if found is not None:
                forms.settle(config, form)
                return _Asked(Answer(found.response, None, None, found.latency, found.tries,
                                     Usage(found.prompt_tokens, found.completion_tokens)),
                              form, messages)
        form = forms.current(config)
        messages = self._messages(question, form, tried)
        call = turn.begin_call()
        if call is None:
            return _Asked(Answer(None, "stopped", Event.STOPPED, 0.0, 0), form, messages)
        began = time.monotonic()
        try:
            while True:
                answer = self.client.complete(messages, call, response_format(
                    form, self.per_turn, question.chatting, MAX_CHAT))
                if not answer.refused:
                    break
                if forms.step_down(config, form) is None:
                    answer = answer._replace(error=f"{answer.error} ({form}; the declaration "
                                                   f"says structured = {config.structured!r}: "
                                                   "\"auto\" finds the form it takes)")
                    break
                # sent again at once in the next form; the refusal is not one of the
                # call's tries: which process found the form must not change a result
                form = forms.current(config)
                messages = self._messages(question, form, tried)
        finally:
            turn.end_call()
        answer = answer._replace(latency=time.monotonic() - began)
        if answer.text is not None:
            forms.settle(config, form)
            journal.store(journal.key(self.name, self.agent_seed, question.number, attempt,
                                      messages, form), answer.text, round(answer.latency, 4),
                          answer.tries, *answer.usage)
        return _Asked(answer, form, messages)

    def _ask(self, turn: _Turn, question: _Question) -> None:
        try:
            turn.reply = self._play_turn(turn, question)
        except Exception as error:   # noqa: BLE001 - a bug of ours must not hang the game
            turn.reply = Reply(None, Fault(FAULT_POLICY.kind(Event.RAISED),
                                           f"{type(error).__name__}: {error}"))
        finally:
            with self._lock:
                turn.done.set()
                self._asking -= 1
                if self._closed:
                    if not self._asking:
                        self._close_pipe()
                else:
                    os.write(self._write_fd, b"x")

    def _play_turn(self, turn: _Turn, question: _Question) -> Reply:
        chatting = question.chatting
        talk: dict = {"calls": [], "chat": None, "chat_problem": None, "shown": None,
                      "first": question.first, "heard": question.heard, "parse_error": None}
        tried: list[tuple[str, str]] = []
        reason: str | None = ""
        for attempt in range(PARSE_RETRIES + 1):
            answer, form, messages = self._answer(turn, question, attempt + 1, tried)
            talk["calls"].append({"prompt": messages, "response": answer.text,
                                  "error": answer.error, "latency": round(answer.latency, 4),
                                  "tries": answer.tries, "structured": form,
                                  "prompt_tokens": answer.usage.prompt_tokens,
                                  "completion_tokens": answer.usage.completion_tokens})
            if answer.text is None:
                # a call stopped at its deadline (as a REPL stops one), an answer that was
                # not a chat completion, an HTTP error or a refused form: the client said
                kind = FAULT_POLICY.kind(answer.event or Event.RAISED)
                return Reply(None, Fault(kind, f"model call failed: {answer.error}"), None,
                             talk)
            read = read_answer(answer.text, self.per_turn, chatting, form)
            if read.moves is not None:
                if chatting:
                    problem = chat_problem(read.chat)
                    talk["chat"], talk["chat_problem"] = read.chat, problem
                    talk["shown"] = read.chat if problem is None else None
                return Reply(read.moves, None, None, talk)
            reason = read.error
            tried.append((answer.text, reason or ""))
        talk["parse_error"] = reason
        return Reply(None, Fault(FAULT_POLICY.kind(Event.BAD_ANSWER), f"parse error: {reason} "
                                          f"({PARSE_RETRIES + 1} answers)"), None, talk)


class _Question(NamedTuple):
    """What a turn asks, as it stood when it was requested."""
    number: int                   # the turn, from 1
    history: tuple                # (mine, theirs, my points, theirs) per turn played
    score: tuple[int, int]
    chatting: bool                # the chat phase
    heard: str | None
    speaks_first: bool
    first: bool | None            # as recorded: None outside the chat phase


class _Asked(NamedTuple):
    answer: Answer
    form: str                     # the form it was asked (or found) in
    messages: list[dict]          # as sent
