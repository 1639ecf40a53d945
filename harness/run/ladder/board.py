"""The ladder's board, worked out from its record alone: each agent's rating (ratings.py),
wins, draws and losses, mean score a game, versions and games, and what the last pass said
of each submission. The JSON, the terminal table and the site all show this one board."""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.core.seeds import canonical_name, name_order
from harness.store.ladder_record import LadderRecord

from .ratings import Rating, rate
from .submissions import FAILED, OK, REFERENCE


@dataclass
class Entry:
    agent: str                        # the team's name
    pseudonym: str
    reference: bool
    version: str | None               # the digest of the version the entry is about
    status: str
    message: str
    rating: Rating | None
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    history: list = field(default_factory=list)    # [(pass, Rating)]
    versions: list = field(default_factory=list)   # ladder_record.Version, oldest first
    game_ids: list = field(default_factory=list)   # [(game id, opponent, mine, theirs, version)]

    @property
    def mean_score(self) -> float | None:
        return self.points / self.games if self.games else None


@dataclass
class Board:
    seed: int
    passes: list
    games_played: int
    entries: list[Entry]
    names: dict[int, str]             # version id -> agent name


def board(record: LadderRecord, last_pass: int | None = None) -> Board:
    agents = record.agents()
    names = {v.id: agent.name for agent in agents.values() for v in agent.versions}
    by_version = {v.id: v for agent in agents.values() for v in agent.versions}
    canonical = {agent.name: agent.canonical for agent in agents.values()}
    rows = [row for row in record.game_rows()
            if row.version_a in names and row.version_b in names]
    rated = rate([_order(row, names, by_version, canonical) for row in rows],
                 sorted(canonical.values()))
    entries: dict[str, Entry] = {}
    for agent in agents.values():
        current = by_version.get(agent.current) if agent.current else None
        entries[agent.name] = Entry(
            agent.name, agent.pseudonym, agent.reference,
            current.digest if current else None,
            REFERENCE if agent.reference else (OK if current else FAILED), "",
            rated.now.get(agent.canonical) if current else None,
            history=rated.history.get(agent.canonical, []), versions=agent.versions)
    for row in rows:
        a, b = names[row.version_a], names[row.version_b]
        for me, other, mine, theirs, version in ((a, b, *row.score, row.version_a),
                                                 (b, a, row.score[1], row.score[0],
                                                  row.version_b)):
            entry = entries[me]
            entry.games += 1
            entry.points += mine
            entry.wins += mine > theirs
            entry.draws += mine == theirs
            entry.losses += mine < theirs
            entry.game_ids.append((row.id, other, mine, theirs, by_version[version].digest))
    shown = sorted(entries.values(), key=_rank_key)
    extra = _notices(record, last_pass, entries)
    return Board(record.seed, record.passes(), len(rows), shown + extra, names)


def _rank_key(entry: Entry):
    rating = entry.rating
    return (rating is None, -(rating.ordinal if rating else 0.0), name_order(entry.agent))


def _order(row, names, by_version, canonical):
    """A game's place in the rating order (ratings.py) and its result."""
    version_a, version_b = by_version[row.version_a], by_version[row.version_b]
    owed_in = max(version_a.seen_in, version_b.seen_in)
    a, b = canonical[names[row.version_a]], canonical[names[row.version_b]]
    key = (owed_in, a, version_a.digest, b, version_b.digest, row.number)
    return key, owed_in, a, b, row.score[0], row.score[1]


def _notices(record: LadderRecord, last_pass: int | None, entries: dict[str, Entry]):
    """The last pass's word on each submission that does not play as found: its status on
    the agent's entry when the agent has no playing version, else an entry of its own
    (a failing upload beside the version that still plays)."""
    if last_pass is None:
        passes = record.passes()
        last_pass = passes[-1][0] if passes else None
    if last_pass is None:
        return []

    by_canonical = {canonical_name(name): entry for name, entry in entries.items()}
    extra = []
    for source, agent, status, message in record.notices(last_pass):
        if status == OK:
            continue
        entry = by_canonical.get(canonical_name(agent or ""))
        if entry is not None and entry.version is None:   # no version of it plays
            entry.status, entry.message = status, message
            entry.version = next((v.digest for v in reversed(entry.versions)
                                  if v.source == source), None)
            continue
        if entry is not None and status == "withdrawn":
            entry.status, entry.message = status, message
            continue
        failed = None
        if entry is not None:
            failed = next((v.digest for v in reversed(entry.versions) if not v.ok
                           and v.source == source), None)
        extra.append(Entry(agent or source, entry.pseudonym if entry else "", False,
                           failed, status, message, None))
    return extra


def as_json(found: Board, names: str = "pseudonyms") -> dict:
    """`--format json`: {"games_played": N, "entries": [{"agent", "name", "version",
    "status", "rating": {"mu", "sigma"}, "games"}]}: "agent" the team's name, "name" the
    name the board shows (the pseudonym, or the team's with --names real)."""
    return {"games_played": found.games_played, "entries": [
        {"agent": entry.agent, "name": shown_name(entry, names), "version": entry.version,
         "status": entry.status,
         "rating": None if entry.rating is None else {"mu": entry.rating.mu,
                                                       "sigma": entry.rating.sigma},
         "games": entry.games} for entry in found.entries]}


def shown_name(entry: Entry, names: str) -> str:
    """What the board calls an agent: a reference by its own name, others by pseudonym
    unless the instructor asked for real names."""
    if entry.reference or names == "real":
        return entry.agent
    return entry.pseudonym or "an unreadable submission"
