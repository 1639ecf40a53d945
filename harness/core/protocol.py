"""The host line protocol's verbs, owned here once: each verb's word, channel, sender,
receiver and arguments with their grammar, as plain data, and the one way to write a line
(`Verb.line`) and to read one (`parse`).

The monitor (harness/isolation/handles/process.py, repl.py) writes its requests and reads
every reply with these; the Python host (harness/isolation/host.py) and the in-process
runtime take their words from here (a game's child writes and splits its lines itself:
fewer pages to copy after the fork; tests/test_protocol.py checks it writes the same). The Lisp hosts cannot import Python:
tests/test_protocol.py holds lisp_bridge/sbcl_host.lisp (and the REPL's
lisp_bridge/repl_monitor.lisp) to exactly the verbs of `HOST` (and `REPL`) below.
docs/DESIGN.md ("Host line protocol") says how the channels work; this says what is on them.

It lives in core, below isolation, because harness/agents/runtime.py answers in the reply
verbs too. Pure, and it imports nothing: a host imports it under `-S` before it forks any
game, and a game's child parses a request with no regular expression.
"""
from __future__ import annotations

TYPE_CHECKING = False  # a host process imports no more than it must: not even typing
if TYPE_CHECKING:
    from typing import Any

# -- the channels (docs/DESIGN.md) ------------------------------------------------------------
CONTROL_CHANNEL = "control"   # the host's stdin and stdout, served by its zygote (no agent code)
GAME_CHANNEL = "game"         # the pipes named in PDH_GAME_FDS, served by the game's own process
REPL_CHANNEL = "repl"   # a REPL's request pipe (lines after a channel number) and reply pipes

# -- who speaks ----------------------------------------------------------------------------
MONITOR = "monitor"
ZYGOTE = "zygote"                 # the host's own process: it never runs agent code
GAME_PROCESS = "game's process"   # runs the agent: it may write anything (a REPL, too)

# -- every line ------------------------------------------------------------------------------
LINE_LIMIT = 4096       # bytes in a line before its newline; a longer reply is a violation
JUNK_ALLOWANCE = 16     # unmarked (or empty) lines ignored per request; one more: a violation

# -- the grammar of one argument --------------------------------------------------------------
COUNT = "count"          # ASCII decimal digits: 0, 1, 2, ...
INTEGER = "integer"      # ASCII decimal digits, after a minus sign or not
MOVE_STRING = "moves"    # C and D, at least one: a turn's moves
TEXT = "text"            # the rest of the line as it is (spaces too, possibly empty); last
KEYWORD = "keyword"      # the argument's name itself, as spelled (MOVES's WARN)


class Argument:
    """One argument: its name (a keyword's spelling) and its grammar. Optional arguments
    come last and together: all present, or none."""

    __slots__ = ("name", "grammar", "optional")

    def __init__(self, name: str, grammar: str, optional: bool = False):
        self.name, self.grammar, self.optional = name, grammar, optional

    def __repr__(self) -> str:
        return self.name if self.grammar == KEYWORD else f"<{self.name}:{self.grammar}>"


class Verb:
    """A verb of the protocol. A line is its word and its arguments, each after one space,
    ended by a newline; a line to the monitor starts with the host's token and a space."""

    __slots__ = ("word", "channel", "sender", "receiver", "arguments", "about", "_forms",
                 "_first_optional", "_lengths", "_splits", "_grammar", "_only_moves")

    def __init__(self, word: str, channel: str, sender: str, receiver: str,
                 arguments: tuple[Argument, ...] = (), about: str = ""):
        self.word, self.channel, self.sender, self.receiver = word, channel, sender, receiver
        self.arguments = arguments
        self.about = about
        optional = [i for i, argument in enumerate(arguments) if argument.optional]
        self._first_optional = optional[0] if optional else len(arguments)
        # the line's form for each number of values given: without or with the optional ones
        self._forms = {self._values(arguments[:self._first_optional]): self._form(False)}
        if optional:
            self._forms[self._values(arguments)] = self._form(True)
        # how many words follow the verb's own (with or without the optional ones), and
        # how to split a line into them: a text, always last, keeps its spaces
        self._lengths = {1 + self._first_optional, 1 + len(arguments)}
        self._grammar = tuple((argument.grammar, argument.name) for argument in arguments)
        self._only_moves = all(argument.grammar == MOVE_STRING for argument in arguments)
        if any(argument.grammar == TEXT for argument in arguments[:-1]):
            raise ValueError(f"{word}: a text argument comes last")
        self._splits = len(arguments) if arguments and arguments[-1].grammar == TEXT else -1

    @staticmethod
    def _values(arguments) -> int:
        return sum(argument.grammar != KEYWORD for argument in arguments)

    def _form(self, with_optional: bool) -> str:
        parts = [self.word]
        for argument in self.arguments:
            if argument.optional and not with_optional:
                break
            parts.append(argument.name if argument.grammar == KEYWORD else "%s")
        return " ".join(parts) + "\n"

    def __repr__(self) -> str:
        """Its grammar as docs/DESIGN.md writes it: `TURN [<mine:moves> <theirs:moves>]`."""
        shown = " ".join([self.word, *map(repr, self.arguments[:self._first_optional])])
        optional = " ".join(map(repr, self.arguments[self._first_optional:]))
        return f"{shown} [{optional}]" if optional else shown

    def line(self, *values: object) -> str:
        """The verb's line, newline-ended: a value for each argument that is not a keyword
        (keywords are written here), the optional ones given all or not at all. Values are
        not checked (what a host or the monitor writes is checked where it is read)."""
        form = self._forms.get(len(values))
        if form is None:
            raise TypeError(f"{self.word} takes {' or '.join(map(str, self._forms))} values, "
                            f"not {len(values)}")
        return form % values

    def read(self, line: str) -> tuple[Any, ...] | None:
        """The values of `line`, this verb's line without its newline (counts and integers
        as int), absent optional ones left out; None if it breaks the grammar."""
        parts = line.split(" ", self._splits)
        if parts[0] != self.word or len(parts) not in self._lengths:
            return None
        del parts[0]
        if self._only_moves:   # SYNC and TURN, the requests of every turn
            for value in parts:
                if not value or value.strip("CD"):
                    return None
            return tuple(parts)
        values: list[Any] = []
        for (grammar, name), value in zip(self._grammar, parts, strict=False):  # optional
            if grammar == MOVE_STRING:
                if not value or value.strip("CD"):
                    return None
                values.append(value)
            elif grammar == TEXT:
                values.append(value)
            elif grammar == KEYWORD:
                if value != name:
                    return None
            else:   # COUNT, INTEGER
                digits = value[1:] if grammar == INTEGER and value[:1] == "-" else value
                if not (digits.isascii() and digits.isdigit()):
                    return None
                values.append(int(value))
        return tuple(values)


_TURN_PLAYED = Argument("mine", MOVE_STRING), Argument("theirs", MOVE_STRING)

# -- control channel: the monitor -> the zygote ------------------------------------------------
END = Verb("END", CONTROL_CHANNEL, MONITOR, ZYGOTE, about=(
    "the game is over: its process and all it started are killed, the next game's process "
    "is forked, then ENDED; nothing of the next game is sent before ENDED (on a REPL's "
    "channel: no process to end, no ENDED)"))
QUIT = Verb("QUIT", CONTROL_CHANNEL, MONITOR, ZYGOTE, about="exit (so does the end of input)")

# -- control channel: the zygote -> the monitor ------------------------------------------------
READY = Verb("READY", CONTROL_CHANNEL, ZYGOTE, MONITOR, about=(
    "loaded, and the first game's process forked (a REPL says it on each reply pipe)"))
LOADING = Verb("LOADING", CONTROL_CHANNEL, ZYGOTE, MONITOR, about=(
    "the host has started and the agent's own load begins (its file compiled and loaded "
    "once): the load's time limit (--load-timeout) runs from here to READY or LOADERR"))
LOADERR = Verb("LOADERR", CONTROL_CHANNEL, ZYGOTE, MONITOR, (Argument("message", TEXT),), about=(
    "instead of READY: the agent does not load here (then the host exits)"))
ENDED = Verb("ENDED", CONTROL_CHANNEL, ZYGOTE, MONITOR, about=(
    "the answer to END: every process of the game is dead"))
DIED = Verb("DIED", CONTROL_CHANNEL, ZYGOTE, MONITOR, (Argument("wait_status", COUNT),), about=(
    "unbidden: the game's process died (a crash; the host lives on)"))

# -- game channel: the monitor -> the game's process -------------------------------------------
GAME = Verb("GAME", GAME_CHANNEL, MONITOR, GAME_PROCESS, (
    Argument("serial", COUNT), Argument("agent_seed", COUNT),
    Argument("moves_per_turn", COUNT), Argument("T", INTEGER), Argument("R", INTEGER),
    Argument("P", INTEGER), Argument("S", INTEGER)), about=(
    "a fresh agent, seeded (0 <= seed < 2**64), loaded: one reply, LOADED, when the "
    "host was started with ANSWER_GAME=1 (a built-in's host, which loads nothing, is "
    "not); else none. The serial counts this host's games from 1, one "
    "more after each END on both sides: a game's process skips the lines before its own "
    "GAME"))
SYNC = Verb("SYNC", GAME_CHANNEL, MONITOR, GAME_PROCESS, _TURN_PLAYED, about=(
    "a played turn, the agent not called (a replacement brought up to date); no reply"))
TURN = Verb("TURN", GAME_CHANNEL, MONITOR, GAME_PROCESS,
            tuple(Argument(a.name, a.grammar, optional=True) for a in _TURN_PLAYED), about=(
                "the previous turn as played (none on the first), then call the agent: "
                "one reply"))

# -- game channel: the game's process -> the monitor -------------------------------------------
# A host answers GAME with LOADED only when the monitor's handle waits for it: it says so in
# this variable (a host started by hand, or by a test's own handle, is asked for none)
ANSWER_GAME = "PDH_ANSWER_GAME"
LOADED = Verb("LOADED", GAME_CHANNEL, GAME_PROCESS, MONITOR, about=(
    "the answer to GAME: the fresh agent has loaded (its module body ran, its fasl "
    "loaded); the monitor sends the game's first TURN only then, so the load has its own "
    "limit (--load-timeout), not the first call's"))
WARN = "WARN"
MOVES = Verb("MOVES", GAME_CHANNEL, GAME_PROCESS, MONITOR, (
    Argument("moves", MOVE_STRING), Argument(WARN, KEYWORD, optional=True),
    Argument("note", TEXT, optional=True)), about=(
    "the agent's moves (WARN: accepted, but spelled non-canonically)"))
INVALID = Verb("INVALID", GAME_CHANNEL, GAME_PROCESS, MONITOR, (Argument("description", TEXT),),
               about="the agent's answer is not moves")
ERROR = Verb("ERROR", GAME_CHANNEL, GAME_PROCESS, MONITOR, (Argument("condition", TEXT),),
             about="the agent raised (signalled) an error")
TIMEOUT = Verb("TIMEOUT", GAME_CHANNEL, GAME_PROCESS, MONITOR, (Argument("note", TEXT),),
               about="a REPL stopped an overlong call itself (hosts keep no timer)")

# -- a REPL's channel (lisp_bridge/repl_monitor.lisp): the game channel's, one game at a time --
REPL_GAME = Verb("GAME", REPL_CHANNEL, MONITOR, GAME_PROCESS, GAME.arguments[1:], about=(
    "GAME without its serial: one channel, no process of a past game to skip"))

# -- who speaks what ---------------------------------------------------------------------------
HOST: tuple[Verb, ...] = (END, QUIT, LOADING, READY, LOADERR, ENDED, DIED,
                          GAME, SYNC, TURN, LOADED, MOVES, INVALID, ERROR)
"""Every verb a host (Python or SBCL) sends or reads."""
REPL: tuple[Verb, ...] = (REPL_GAME, SYNC, TURN, END, READY, MOVES, INVALID, ERROR, TIMEOUT)
"""Every verb of a REPL's channel: the game channel's, READY, END (which the REPL ignores:
it has nothing to end) and TIMEOUT."""
VERBS: tuple[Verb, ...] = (*HOST, TIMEOUT, REPL_GAME)


def table(verbs: tuple[Verb, ...]) -> dict[str, Verb]:
    """word -> verb, for `parse`: one reader's verbs have distinct words."""
    found = {verb.word: verb for verb in verbs}
    if len(found) != len(verbs):
        raise ValueError("two verbs with one word in one table")
    return found


# -- what each reader reads ---------------------------------------------------------------------
ZYGOTE_READS = table((END, QUIT))                     # the control channel's requests
GAME_PROCESS_READS = table((GAME, SYNC, TURN))        # the game channel's requests
MONITOR_READS_CONTROL = table((LOADING, READY, LOADERR, ENDED, DIED))   # the zygote's, marked
MONITOR_READS_GAME = table((MOVES, INVALID, ERROR, TIMEOUT))   # one answers each TURN, marked
NOT_A_LINE: tuple[None, tuple[()]] = (None, ())


def parse(line: str, verbs: dict[str, Verb]) -> tuple[Verb | None, tuple[Any, ...]]:
    """(verb, values) if `line` (no newline, no token) is exactly one of `verbs`' lines
    (a `table`); `NOT_A_LINE`, (None, ()), otherwise: its reader decides what that means."""
    space = line.find(" ")
    verb = verbs.get(line if space < 0 else line[:space])
    if verb is None:
        return NOT_A_LINE
    values = verb.read(line)
    return NOT_A_LINE if values is None else (verb, values)
