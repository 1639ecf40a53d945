"""The Axelrod host: one long-lived process per run that imports the Axelrod library once
and plays every `axelrod:` agent of the run (harness/isolation/handles/axelrod_agent.py opens it).

It is trusted library code, not an agent's: it runs outside the sandbox, as a plain child
of the monitor, and never reads anything an agent wrote (it is told the played moves by the
monitor, which checked them). It listens on a Unix socket the monitor bound and handed it
(`--listen-fd`): each connection is one agent's handle (a forked worker opens its own), so
one import serves every agent and every worker. Requests are served one at a time, in
order; each is a line, and so is each reply:

    OPEN <class>                          -> READY | LOADERR <message>
    GAME <seed> <moves_per_turn> <T> <R> <P> <S>     (a fresh player; no reply)
    TURN [<mine> <theirs>]                -> MOVES <moves> | ERROR <message>
    END                                   (the player is dropped; no reply)

How a one-move strategy answers a turn of k moves (docs/axelrod.md, "Several moves a
turn"): it is told the played moves one at a time and asked once after each, as
`axelrod.Match` asks it (`strategy` after each `update_history`); its answer after the
m-th played move is its move m + k of the game. So move n answers the game as it stood one
turn earlier (n - k), as pdharness's built-ins and memory: agents do, and with one move a
turn the calls are exactly Axelrod's. The first turn repeats the opening answer.

`python -m harness.isolation.axelrod_host --catalogue` prints the library's catalogue
(harness/agents/axelrod_strategies.json is that output).
"""
from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
import warnings
from typing import Any

from harness.agents.axelrod_strategies import AXELROD_VERSION, INSTALL_HINT
from harness.core.protocol import LINE_LIMIT
from harness.core.rules import MAX_MOVES_PER_TURN

OPEN, READY, LOADERR, GAME, TURN, MOVES, ERROR, END = (
    "OPEN", "READY", "LOADERR", "GAME", "TURN", "MOVES", "ERROR", "END")


def seed32(agent_seed: int) -> int:
    """The game's 64-bit agent seed folded to the 32 bits numpy's RandomState (Axelrod's
    generator) takes, every bit of it counting."""
    return (agent_seed ^ (agent_seed >> 32)) & 0xFFFFFFFF


class _Library:
    """The Axelrod library, imported once, or why it cannot be."""

    def __init__(self):
        warnings.simplefilter("ignore")   # its import warns about Human, classifiers...
        self.problem: str | None = None
        try:
            import axelrod  # optional, and heavy: imported in this process only
        except ImportError:
            self.problem = f"the Axelrod library is not installed: {INSTALL_HINT}"
            return
        if axelrod.__version__ != AXELROD_VERSION:
            self.problem = (f"pdharness plays the Axelrod library {AXELROD_VERSION}, not "
                            f"{axelrod.__version__}: {INSTALL_HINT}")
            return
        self.axl = axelrod
        self.classes = {cls.__name__: cls for cls in axelrod.all_strategies}
        self.opponent_class = _opponent_class(axelrod)

    def strategy_class(self, name: str):
        """(class, None), or (None, why not)."""
        if self.problem:
            return None, self.problem
        found = self.classes.get(name)
        return (found, None) if found else (None, f"Axelrod has no strategy {name!r}")


def _opponent_class(axl):
    base: Any = axl.Player   # a class the library defines (no type information)

    class Opponent(base):
        """The other side of the game, as a strategy sees it: its history only (the
        monitor feeds it); it has no strategy of its own to inspect."""

        name = "pdharness opponent"
        classifier = {"memory_depth": float("inf"), "stochastic": True,
                      "long_run_time": False, "inspects_source": False,
                      "manipulates_source": False, "manipulates_state": False,
                      "makes_use_of": set()}

        def strategy(self, opponent):
            raise RuntimeError("a pdharness opponent is played by the monitor")
    return Opponent


class Game:
    """One game of one strategy: a fresh player, seeded, the game length hidden."""

    def __init__(self, library: _Library, cls, seed: int, per_turn: int, payoffs):
        axl = library.axl
        self.moves = {"C": axl.Action.C, "D": axl.Action.D}
        self.player = cls()
        self.player.set_seed(seed32(seed))
        t, r, p, s = payoffs
        # length -1: the game's length stays hidden, as from every agent (docs/rules.md)
        self.player.set_match_attributes(length=-1, game=axl.Game(r=r, s=s, t=t, p=p),
                                         noise=0)
        self.opponent = library.opponent_class()
        self.per_turn = per_turn

    def turn(self, mine: str | None, theirs: str | None) -> str:
        player, opponent = self.player, self.opponent
        if mine is None or theirs is None:
            return str(player.strategy(opponent)) * self.per_turn
        answers = []
        for played, faced in zip(mine, theirs, strict=True):
            move, other = self.moves[played], self.moves[faced]
            player.update_history(move, other)
            opponent.update_history(other, move)
            answers.append(str(player.strategy(opponent)))
        return "".join(answers)


class _Unplayable:
    """A game whose player could not be made: each turn is the error that stopped it."""

    def __init__(self, error: Exception):
        self.error = error

    def turn(self, mine, theirs) -> str:
        raise self.error


class Connection:
    """One agent's handle: its strategy class and the game being played."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buffer = b""
        self.cls = None
        self.game: Game | _Unplayable | None = None

    def serve(self, line: str, library: _Library) -> str | None:
        word, _, rest = line.partition(" ")
        if word == OPEN:
            self.cls, problem = library.strategy_class(rest)
            return READY if problem is None else f"{LOADERR} {problem}"
        if word == GAME:
            try:
                seed, per_turn, t, r, p, s = (int(value) for value in rest.split())
                if not 1 <= per_turn <= MAX_MOVES_PER_TURN:
                    raise ValueError(f"{per_turn} moves a turn")
                self.game = Game(library, self.cls, seed, per_turn, (t, r, p, s))
            except Exception as error:   # told at the game's first TURN, which has a reply
                self.game = _Unplayable(error)
            return None
        if word == END:
            self.game = None
            return None
        if word == TURN:
            return self._turn(rest)
        return f"{ERROR} unknown request {word[:40]!r}"

    def _turn(self, rest: str) -> str:
        if self.game is None:
            return f"{ERROR} no game started"
        played = rest.split()
        try:
            moves = self.game.turn(*(played if len(played) == 2 else (None, None)))
        except Exception as error:   # the library's: told as the agent's error
            return f"{ERROR} {type(error).__name__}: {' '.join(str(error).split())[:300]}"
        return f"{MOVES} {moves}"


def serve(listener: socket.socket, control) -> None:
    """Answer every connection's requests until the monitor's end of `control` closes."""
    library = _Library()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, None)
    selector.register(control, selectors.EVENT_READ, "control")
    while True:
        for key, _events in selector.select():
            if key.data == "control":
                if not os.read(control.fileno(), 4096):
                    return
            elif key.data is None:
                sock, _ = listener.accept()
                selector.register(sock, selectors.EVENT_READ, Connection(sock))
            elif not _read(key.data, library):
                selector.unregister(key.fileobj)
                key.data.sock.close()


def _read(connection: Connection, library: _Library) -> bool:
    """Serve the complete lines that arrived; False once the handle has gone."""
    try:
        chunk = connection.sock.recv(65536)
    except OSError:
        return False
    if not chunk:
        return False
    *lines, connection.buffer = (connection.buffer + chunk).split(b"\n")
    if len(connection.buffer) > LINE_LIMIT or any(len(raw) > LINE_LIMIT for raw in lines):
        return False   # no request of ours is that long: whoever sent it is dropped
    replies = []
    for raw in lines:
        reply = connection.serve(raw.decode("ascii", "replace"), library)
        if reply is not None:
            replies.append(reply + "\n")
    if replies:
        try:
            connection.sock.sendall("".join(replies).encode("utf-8"))
        except OSError:
            return False
    return True


def catalogue() -> dict:
    """The library's strategies with its classifier, as harness/agents/axelrod_strategies.json
    keeps them."""
    warnings.simplefilter("ignore")
    import axelrod as axl  # optional, and heavy: imported in this process only

    rows = []
    for cls in sorted(axl.all_strategies, key=lambda found: found.__name__):
        player = cls()
        classify = axl.Classifiers
        depth = classify["memory_depth"](player)
        rows.append({
            "name": cls.__name__, "label": player.name,
            "memory_depth": None if depth == float("inf") else int(depth),
            "stochastic": bool(classify["stochastic"](player)),
            "long_run_time": bool(classify["long_run_time"](player)),
            "cheats": any(classify[key](player) for key in
                          ("inspects_source", "manipulates_source", "manipulates_state"))})
    return {"axelrod": axl.__version__, "strategies": rows}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--catalogue"]:
        found = catalogue()   # one strategy a line: a new version's changes read as a diff
        rows = ",\n  ".join(json.dumps(row) for row in found["strategies"])
        print(f'{{"axelrod": {json.dumps(found["axelrod"])},\n "strategies": [\n  {rows}]}}')
        return
    if argv[:1] != ["--listen-fd"] or len(argv) != 2:
        sys.exit("usage: python -m harness.isolation.axelrod_host --listen-fd FD | --catalogue")
    # no PR_SET_PDEATHSIG: it fires when the thread that started the host ends (a pool's
    # opening thread), not the monitor. The end of stdin (the monitor's pipe, which only
    # the monitor and its forked workers hold) ends it instead, however they die.
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the monitor ends it, not a Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    listener = socket.socket(fileno=int(argv[1]))
    serve(listener, sys.stdin)


if __name__ == "__main__":
    main(sys.argv[1:])
