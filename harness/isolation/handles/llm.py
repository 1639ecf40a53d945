"""A language-model agent as an agent handle.

It is trusted code of ours (not student code) that talks to a network endpoint, so it
runs in the monitor's process (or a forked worker) in every isolation mode: the sandbox
has no network, and nothing of the model's runs anywhere; its answers are only read, as
untrusted text, by the parse rule (harness/agents/llm/parse.py).

Each request runs on a thread of its own and signals a pipe when done, so a runner that
waits on many games at once (harness/engine/runners.py) goes on with other games while a model
thinks. The student per-call time limit does not apply to it; the model-call limit
(`timeout` of the declaration) does, per call, and a turn whose calls all time out is a
`timeout` fault (three in a row and the game stops asking, as for any agent).
"""
from __future__ import annotations

import os
import select
import threading
import time

from harness.agents.llm import journal, prompts
from harness.agents.llm.client import MAX_RESPONSE, Answer, ModelClient
from harness.agents.llm.config import LlmConfig
from harness.agents.llm.parse import chat_problem, parse_chat, parse_moves
from harness.core.fault_policy import FAULT_POLICY, Event
from harness.core.rules import Scorer
from harness.isolation.handles.agent_handle import Chatter, Fault, GameStart, Last, Reply

PARSE_RETRIES = 2            # corrective prompts after an answer that cannot be read
_POLL_AGAIN = 0.5            # seconds: how long a runner waits before looking again


class LlmHandle(Chatter):
    def __init__(self, name: str, config: LlmConfig, client: ModelClient | None = None):
        self.name = name
        self.config = config
        self.chats = config.chat
        self.client = client or ModelClient(config)
        self.client.check()   # once per endpoint and model: before the first game
        self._read_fd, self._write_fd = os.pipe()   # after the check, which may refuse
        self._thread: threading.Thread | None = None
        self._done = threading.Event()   # the turn's answer is in (set before the pipe)
        self._lock = threading.Lock()    # close() against the end of a turn's thread
        self._closed = False
        self._reply: Reply | None = None
        self._first: bool | None = None
        self._heard: str | None = None

    # -- PollableHandle --------------------------------------------------------------------
    # `deadline` is not a limit here (the client enforces the model-call limit): it is how
    # long a runner may wait before it looks again, set each time it asks what to wait on
    deadline = 0.0

    def waiting_on(self) -> dict[int, int]:
        if self._thread is None or self._done.is_set():
            return {}
        self.deadline = time.monotonic() + _POLL_AGAIN
        return {self._read_fd: select.POLLIN}

    def pump(self, fd: int, events: int) -> None:
        pass                           # collect() reads the pipe

    def captured_output(self) -> str:
        return ""

    def fork_child(self) -> bool:
        """A forked worker gets a pipe of its own (the client makes its own connections)."""
        for fd in (self._read_fd, self._write_fd):
            os.close(fd)
        self._read_fd, self._write_fd = os.pipe()
        return True

    def close(self) -> None:
        """Never waits for a model (Ctrl-C closes handles mid-call): a turn still asking
        closes the pipe itself when its call ends."""
        with self._lock:
            self._closed = True
            if self._thread is not None and not self._done.is_set():
                return
        self._finish()
        self._close_pipe()

    def _close_pipe(self) -> None:
        for fd in (self._read_fd, self._write_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    # -- AgentHandle -----------------------------------------------------------------------
    def start_game(self, start: GameStart) -> None:
        self.agent_seed = start.agent_seed   # which game this is (the journal's key)
        self.per_turn = start.moves_per_turn
        self.scorer = Scorer(start.payoffs)
        self.system = prompts.system_prompt(self.config.framing_text, start.payoffs,
                                            start.moves_per_turn)
        self.history: list[tuple[str, str, int, int]] = []
        self.score = (0, 0)

    def talk_turn(self, first: bool, heard: str | None) -> None:
        self._first, self._heard = first, heard

    def request(self, last: Last) -> None:
        if last is not None:
            got, gave = self.scorer(last[0], last[1])
            self.history.append((last[0], last[1], got, gave))
            self.score = (self.score[0] + got, self.score[1] + gave)
        chatting = self._first is not None
        message = prompts.turn_message(len(self.history) + 1, self.history, self.score,
                                       self.per_turn, chatting, self._heard, bool(self._first))
        first, heard = self._first, self._heard
        self._first = self._heard = None
        self._reply = None
        self._done.clear()
        self._thread = threading.Thread(target=self._ask, args=(message, chatting, first, heard),
                                        name=f"llm {self.name}", daemon=True)
        self._thread.start()

    def collect(self) -> Reply:
        self._finish()
        reply, self._reply = self._reply, None
        return reply if reply is not None else Reply(None, Fault(FAULT_POLICY.kind(Event.RAISED),
                                                                 "no answer"))

    def said(self) -> str | None:
        return None if self._last_talk is None else self._last_talk.get("shown")

    def end_game(self) -> None:
        self._finish()

    # -- the turn, on its own thread -------------------------------------------------------
    _last_talk: dict | None = None

    def _finish(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            try:
                os.read(self._read_fd, 64)
            except OSError:
                pass

    def _answer(self, turn: int, attempt: int, messages: list[dict]) -> Answer:
        """The journal's answer to this very question (a resumed run), else the model's."""
        entry = journal.key(self.name, self.agent_seed, turn, attempt, messages)
        found = journal.lookup(entry)
        if found is not None:
            text, latency, tries = found
            return Answer(text[:MAX_RESPONSE], None, False, latency, tries)
        answer = self.client.complete(messages)
        if answer.text is not None:
            journal.store(entry, answer.text, round(answer.latency, 4), answer.tries)
        return answer

    def _ask(self, message: str, chatting: bool, first, heard) -> None:
        try:
            self._reply = self._turn(message, chatting, first, heard)
        except Exception as error:   # noqa: BLE001 - a bug of ours must not hang the game
            self._reply = Reply(None, Fault(FAULT_POLICY.kind(Event.RAISED),
                                            f"{type(error).__name__}: {error}"))
        finally:
            self._last_talk = self._reply.talk if self._reply is not None else None
            with self._lock:
                self._done.set()
                if self._closed:
                    self._close_pipe()
                else:
                    os.write(self._write_fd, b"x")

    def _turn(self, message: str, chatting: bool, first, heard) -> Reply:
        messages = [{"role": "system", "content": self.system},
                    {"role": "user", "content": message}]
        talk: dict = {"calls": [], "chat": None, "chat_problem": None, "shown": None,
                      "first": first, "heard": heard, "parse_error": None}
        reason: str | None = ""
        turn = len(self.history) + 1
        for attempt in range(PARSE_RETRIES + 1):
            answer = self._answer(turn, attempt + 1, messages)
            talk["calls"].append({"prompt": list(messages), "response": answer.text,
                                  "error": answer.error, "latency": round(answer.latency, 4),
                                  "tries": answer.tries})
            if answer.text is None:
                # the client stops a call at its limit, as a REPL does
                kind = FAULT_POLICY.kind(Event.STOPPED if answer.timed_out
                                         else Event.RAISED)
                return Reply(None, Fault(kind, f"model call failed: {answer.error}"), None,
                             talk)
            moves, reason = parse_moves(answer.text, self.per_turn)
            if moves is not None:
                if chatting:
                    chat = parse_chat(answer.text)
                    problem = chat_problem(chat)
                    talk["chat"], talk["chat_problem"] = chat, problem
                    talk["shown"] = chat if problem is None else None
                return Reply(moves, None, None, talk)
            if attempt < PARSE_RETRIES:
                messages = messages + [
                    {"role": "assistant", "content": answer.text},
                    {"role": "user", "content": prompts.corrective_message(
                        reason or "", self.per_turn, chatting)}]
        talk["parse_error"] = reason
        return Reply(None, Fault(FAULT_POLICY.kind(Event.BAD_ANSWER), f"parse error: {reason} "
                                          f"({PARSE_RETRIES + 1} answers)"), None, talk)
