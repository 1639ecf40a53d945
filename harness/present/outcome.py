"""How a result should be read, said the same way by the table, `show` and the report:

- how the run ended: one winner; co-winners (the agents still in all tied on the last
  round's score); stopped by --max-rounds after round N (the agents still in are not
  tied, so none of them "won": they are ranked by that round's score, provisionally); or an
  unfinished record (a provisional order);
- agents whose standing rests on the default answer: every game's first call faulted (their
  first turn was always played as the default answer), or every call did.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.core.counts import counted

WINNER, CO_WINNERS, STOPPED, UNFINISHED = "winner", "co-winners", "stopped", "unfinished"


@dataclass(frozen=True)
class Ending:
    kind: str
    last_round: int
    still_in: tuple[str, ...]

    @property
    def out_word(self) -> str:
        """What the `out` column says of an agent still in."""
        return WINNER if self.kind in (WINNER, CO_WINNERS) else "still in"

    @property
    def headline(self) -> str:
        names = ", ".join(self.still_in)
        if self.kind == CO_WINNERS:
            return f"Co-winners (all tied in round {self.last_round}): {names}"
        if self.kind == STOPPED:
            return (f"Stopped after round {self.last_round} (--max-rounds): no winner; "
                    f"{len(self.still_in)} agents still in, ranked by round "
                    f"{self.last_round}'s score")
        if self.kind == UNFINISHED and self.last_round == 0:  # stopped during round 1
            return (f"Unfinished: no round completed yet; all {len(self.still_in)} agents "
                    "still in, not ranked")
        if self.kind == UNFINISHED:
            return (f"Unfinished: provisional order after round {self.last_round}; "
                    f"{len(self.still_in)} agents still in, ranked by round "
                    f"{self.last_round}'s score")
        return f"Winner: {names}" if names else "No winner"


def ending(result, incomplete: bool = False) -> Ending:
    still_in = tuple(s.agent for s in result.standings if s.dropped_in is None)
    last = result.rounds[-1].number if result.rounds else 0
    if incomplete:
        kind = UNFINISHED
    elif len(still_in) <= 1:
        kind = WINNER
    elif result.rounds and not result.rounds[-1].dropped:
        kind = CO_WINNERS
    else:
        kind = STOPPED
    return Ending(kind, last, still_in)


def default_answer_notes(result) -> dict[str, str]:
    """Agent -> a note, for agents that faulted on the first call of every game they
    played (or on every call): their turns were the default answer, not their play."""
    answer = " ".join(result.settings.game.default_moves)
    games: dict[str, list] = {}
    for game in result.games:
        for side, name in (("a", game.a), ("b", game.b)):
            games.setdefault(name, []).append((game, side))
    notes = {}
    for name, played in games.items():
        if not played or not all(game.length for game, _side in played):
            continue
        firsts = [game.fault_at.get((side, 0)) for game, side in played]
        if not all(firsts):
            continue
        kinds = sorted({fault.kind for fault in firsts})
        every_call = all(game.fault_count(side) == game.length for game, side in played)
        what = "every call" if every_call else "the first call of every game"
        played_as = ("all its turns were" if every_call else "its first turn was always")
        notes[name] = (f"{name} faulted on {what} ({counted(len(played), 'game')}; "
                       f"{', '.join(kinds)}): {played_as} played as the default answer "
                       f"{answer}")
    return notes
