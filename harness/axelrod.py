"""A pdharness agent as a player of the Axelrod library, so a course can put its students'
agents into Axelrod's own `Tournament`, `MoranProcess`, `Ecosystem` and fingerprints.

    import axelrod as axl
    from harness.axelrod import Player

    players = [Player.from_file("student_agents/KhosmoodLevinson.hy"), axl.TitForTat()]
    axl.Tournament(players, turns=50, repetitions=2, seed=1).play(processes=None)

Only the glue is here: the agent is opened exactly as a tournament opens it (its spec
resolved as the command line resolves an AGENT, its handle from `open_handle`, the sandbox
by default), and each of Axelrod's matches is one pdharness game of one move a turn: the
game starts, seeded from the player's own Axelrod generator, on the first move of a match
(an empty history), and the agent is told each played pair as Axelrod's noise left it.
The game's length stays hidden from it, as in pdharness. A fault (a bad answer, a
timeout, a crash) plays the default answer, C, as in a tournament.

Importing this module imports the Axelrod library (`pip install 'pdharness[axelrod]'`);
`import harness` never does. Each Player holds its agent's host process; `close()` ends
it (a garbage-collected or cloned player closes its own).
"""
from __future__ import annotations

import axelrod as axl

from harness.agents.specs import resolve_one
from harness.core.errors import HarnessError, ParameterError
from harness.core.rules import Payoffs
from harness.isolation.handles.agent_handle import GameStart, PollableHandle
from harness.isolation.handles.opening import Isolation, open_handle

_MOVES = {"C": axl.Action.C, "D": axl.Action.D}


def _payoffs(game) -> Payoffs:
    """Axelrod's game as pdharness's payoffs: whole points, and a Prisoner's Dilemma (what a
    pdharness agent is written for); HarnessError, one line, for any other game."""
    r, p, s, t = game.RPST()
    if not all(float(value).is_integer() for value in (t, r, p, s)):
        raise HarnessError(f"a pdharness agent plays whole points; this game pays "
                           f"T R P S = {t} {r} {p} {s}")
    try:
        return Payoffs(int(t), int(r), int(p), int(s))
    except ParameterError as error:
        raise HarnessError(f"a pdharness agent plays a Prisoner's Dilemma: {error}") from None


class Player(axl.Player):
    """An agent file, bundle or any AGENT spec of pdharness, as an Axelrod player."""

    name = "pdharness agent"
    classifier = {"memory_depth": float("inf"), "stochastic": True,
                  "long_run_time": False, "inspects_source": False,
                  "manipulates_source": False, "manipulates_state": False,
                  "makes_use_of": set()}

    def __init__(self, agent: str = "titfortat", isolation: str = "sandbox",
                 timeout: float = 1.0) -> None:
        super().__init__()
        specs = resolve_one(str(agent))
        if len(specs) != 1:
            raise HarnessError(f"{agent}: one agent, not a folder of {len(specs)}")
        self.spec = specs[0]
        self.name = self.spec.name
        self.isolation = Isolation(isolation, timeout)
        self._handle: PollableHandle | None = None
        self._in_game = False

    def __repr__(self) -> str:
        return self.name   # Axelrod's results name players by it: the agent's name

    @classmethod
    def from_file(cls, path, isolation: str = "sandbox", timeout: float = 1.0) -> "Player":
        """The agent of PATH (a file or a bundle), sandboxed as in a tournament."""
        return cls(str(path), isolation, timeout)

    def _opened(self):
        if self._handle is None:
            self._handle = open_handle(self.spec, self.isolation)   # LoadError: it says why
        return self._handle

    def strategy(self, opponent: axl.Player) -> axl.Action:
        handle = self._opened()
        if not self.history:   # a new match: a fresh game, seeded from Axelrod's generator
            self._end_game()
            game = self.match_attributes.get("game") or axl.DefaultGame
            handle.start_game(GameStart(self._random.random_seed_int(), 1, _payoffs(game)))
            self._in_game = True
            handle.request(None)
        else:
            handle.request((str(self.history[-1]), str(opponent.history[-1])))
        reply = handle.collect()
        return _MOVES[reply.moves] if reply.moves else axl.Action.C

    def _end_game(self) -> None:
        if self._in_game and self._handle is not None:
            self._handle.end_game()
        self._in_game = False

    def reset(self) -> None:
        handle, in_game = self._handle, self._in_game
        super().reset()   # runs __init__ again: the handle is kept, not reopened
        self._handle, self._in_game = handle, in_game

    def close(self) -> None:
        self._end_game()
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
