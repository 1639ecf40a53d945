"""What runs next to an agent: in the monitor (`--isolation none`) or in its host process.

It keeps the agent's view of the game (hist and score, rebuilt from the played turns the
monitor sends), loads the agent fresh for every game with its own seeded `random`, calls
it, and turns its answer into canonical moves. Both isolation modes use this same code, so
an agent plays identically in either.
"""
from __future__ import annotations

import os
import random

from harness.core import protocol
from harness.core.errors import LoadError
from harness.core.interrupts import pass_on_a_stop
from harness.core.rules import Payoffs, Scorer

from .answers import InvalidAnswer, normalize

# imports inside functions here are deferred (the host's image stays lean)

TYPE_CHECKING = False  # a host process imports no more than it must: not even typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from .builtins import Strategy

# what a call answers, in the protocol's reply verbs (a host writes them as they are)
MOVES_REPLY, INVALID_REPLY, ERROR_REPLY = protocol.MOVES, protocol.INVALID, protocol.ERROR


def one_line(text: str, limit: int = 500) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_exception(error: BaseException, source: str | None = None) -> str:
    """`IndexError: list index out of range`, and where in SOURCE (the agent's file) it
    was raised when it was: `, at Name.py:12: return hist[5]`, the agent's own frame, never
    the harness's (the deepest frame in that file: a library it called is not its code)."""
    where = agent_frame(error.__traceback__, source) if source else None
    detail = one_line(str(error), 200 if where else 500) if str(error) else ""
    text = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
    return f"{text}, at {where}" if where else text


def agent_frame(tb, source: str) -> str | None:
    """`Name.py:12: the line` for the deepest frame of traceback TB in file SOURCE."""
    import linecache

    line_number = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == source:
            line_number = tb.tb_lineno
        tb = tb.tb_next
    if line_number is None:
        return None
    line = one_line(_source_line(source, line_number) or linecache.getline(source, line_number),
                    120)
    where = f"{os.path.basename(source)}:{line_number}"
    return f"{where}: {line}" if line else where


def _source_line(source: str, number: int) -> str:
    """Line NUMBER of the bytes the run plays for SOURCE (harness/agents/agent_files.py), which a
    game's process may not find on disk (its /tmp is its own) and which are what ran."""
    from .agent_files import handed_over

    given = handed_over(source)
    if given is None:
        return ""
    lines = given.decode("utf-8", "replace").splitlines()
    return lines[number - 1] if 0 < number <= len(lines) else ""


class AgentRuntime:
    def __init__(self, factory, hist_pair, lisp: bool | None = None, new_random=random.Random):
        """`lisp`: its values print as Lisp (None: as its file's language's do);
        `new_random(seed)`: the game's generator (a host's game process: one made ahead)."""
        self.factory = factory
        self.source: str | None = getattr(factory, "source", None)  # where errors are told
        # how its bad answers are quoted back
        self.lisp = _in_lisp_syntax(self.source) if lisp is None else lisp
        self.hist_pair = hist_pair
        self.new_random = new_random
        self.function: Callable[..., object] | LoadError | None = None
        self.hist: list = []
        self.mine = self.theirs = 0
        self.moves_per_turn = 3
        self.score = Scorer()

    def start_game(self, seed: int, moves_per_turn: int, payoffs: Payoffs) -> None:
        """Fresh agent, empty history. A reload that fails becomes the first call's error."""
        self.moves_per_turn = moves_per_turn
        self.score = Scorer(payoffs)
        self.hist = []
        self.mine = self.theirs = 0
        try:
            self.function = self.factory(self.new_random(seed), moves_per_turn)
        except LoadError as error:
            self.function = error

    def record(self, mine: str, theirs: str) -> None:
        """Append one played turn (strings of C/D) to the agent's view of the game."""
        gained, given = self.score(mine, theirs)
        self.mine += gained
        self.theirs += given
        pair = self.hist_pair
        if len(mine) == 1:
            self.hist.append(pair(mine, theirs))
        else:
            self.hist.extend(map(pair, mine, theirs))   # move by move, to the shorter's end

    def call(self) -> tuple[protocol.Verb, str, str | None]:
        """(MOVES, "CCD", warning) or (INVALID|ERROR, message, None)."""
        function = self.function
        if isinstance(function, LoadError):
            return ERROR_REPLY, f"reloading failed: {function}", None
        assert function is not None  # start_game comes first
        try:
            answer = function(list(self.hist), [self.mine, self.theirs])
        except BaseException as error:  # SystemExit and KeyboardInterrupt are agent errors too
            pass_on_a_stop(error)
            return ERROR_REPLY, describe_exception(error, self.source), None
        try:
            moves, warning = normalize(answer, self.moves_per_turn, self.lisp)
        except InvalidAnswer as error:
            return INVALID_REPLY, one_line(str(error)), None
        except BaseException as error:  # a hostile answer object raising from __eq__ etc.
            pass_on_a_stop(error)
            return INVALID_REPLY, f"answer failed when read: {describe_exception(error)}", None
        return MOVES_REPLY, moves, warning


def _in_lisp_syntax(source: str | None) -> bool:
    """An agent file of a language whose values print as Lisp (Hy)."""
    if not source:
        return False

    from .lang import BY_SUFFIX

    language = BY_SUFFIX.get(os.path.splitext(source)[1].lower())
    return bool(language and language.lisp_syntax)


class StrategyRuntime:
    """The same service for a built-in strategy: told the played moves directly, no hist to
    build and no answer to check (it is our own code). The one wrapper of a built-in: its
    host process runs it through this, and so does its in-monitor handle
    (harness/isolation/handles/inprocess.py, BuiltinHandle)."""

    def __init__(self, builtin):
        self.builtin = builtin
        self.strategy: Strategy | None = None

    def start_game(self, seed: int, moves_per_turn: int, payoffs: Payoffs) -> Strategy:
        """The game's strategy, fresh, with its own seeded `random` (if it draws at all)."""
        rng = random.Random(seed) if self.builtin.draws else None
        self.strategy = self.builtin.strategy(rng, moves_per_turn)
        return self.strategy

    def record(self, mine: str, theirs: str) -> None:
        assert self.strategy is not None  # start_game comes first
        self.strategy.observe(mine, theirs)

    def call(self) -> tuple[protocol.Verb, str, None]:
        assert self.strategy is not None
        return MOVES_REPLY, self.strategy.answer(), None
