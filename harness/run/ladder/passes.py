"""One pass of a ladder: read SUBMISSIONS, validate the new versions, play the games still
owed between the current versions, record each game as it finishes.

A pair of current versions owes `games_per_pair` games, each seeded from the ladder's seed,
the two names (canonical) and the two versions: a pass with nothing new owes nothing, a new
agent or version owes only its own pairs' games, and a pass killed at any moment leaves
the games it finished in the record, so the next one plays only the rest. The games are
played by the tournament's own pool, runners (`--jobs`) and cluster (`--cluster`).

A version that passes validation is kept in the ladder's store of versions (beside the
record), so the agent's latest passing version keeps playing when its next upload fails
validation or cannot be read; an agent whose submission has left the folder is withdrawn
(it plays no new game; its games stay in the record).
"""
from __future__ import annotations

import hashlib
import shutil
import time
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from harness.agents.specs import Kind, builtin_spec, file_spec
from harness.core.safe_text import line
from harness.core.seeds import canonical_name, derive, fresh_seed, ladder_game_seed, name_order
from harness.engine.rounds import GameJob, game_length
from harness.engine.runners import HandlePool
from harness.run.round_runner import round_runner
from harness.store.ladder_record import Identity, LadderRecord
from harness.store.settings_columns import columns

from . import submissions
from .submissions import COLLISION, FAILED, OK, REFERENCE, UNREADABLE, WITHDRAWN, Found

if TYPE_CHECKING:
    from harness.engine.tournament import Settings

# the settings that make games comparable: a ladder refuses a pass that changes them
_NOT_RULES = ("jobs", "cluster", "isolation", "max_rounds", "max_faults",
              "disqualify_broken")


@dataclass(frozen=True)
class LadderOptions:
    folder: Path
    db: Path
    settings: Settings
    seed: int | None = None           # None: the record's, or a fresh one for a new ladder
    games_per_pair: int = 4
    references: tuple[str, ...] = ()
    roster: object = None


@dataclass
class PassResult:
    number: int
    played: int                                    # games this pass played
    owed: int                                      # games it found owed
    notices: list[Found] = field(default_factory=list)
    reading: float = 0.0     # seconds reading and validating the submissions
    playing: float = 0.0     # seconds playing the games owed


def rules_of(settings) -> dict:
    """The settings that shape a game, as the record's `run` columns spell them."""
    return {key: value for key, value in columns(settings).items() if key not in _NOT_RULES}


def open_record(options: LadderOptions) -> LadderRecord:
    identity = Identity(str(options.folder.resolve()),
                        options.seed if options.seed is not None else fresh_seed(),
                        rules_of(options.settings), options.games_per_pair)
    return LadderRecord.open(options.db, identity, options.seed is not None)


def store_of(db: Path) -> Path:
    """Where the ladder keeps its accepted versions: beside its record."""
    return db.with_name(db.name + ".versions")


def run_pass(record: LadderRecord, options: LadderOptions, say=None) -> PassResult:
    """One pass (see the module's docstring); `say(text)` hears one line per notice."""
    say = say or (lambda text: None)
    started = time.monotonic()
    number = record.start_pass()
    snapshots = submissions.Snapshots()
    try:
        found = submissions.read_all(submissions.listed(options.folder), snapshots)
        playing = _accept(record, options, found, number)
    finally:
        snapshots.close()
    for entry in found:
        if entry.status not in (OK,):
            say(f"{entry.status}: {line(entry.source)}: {line(entry.message)}")
        record.notice(number, entry.source, entry.name, entry.status, entry.message)
    jobs, versions = _owed(record, options, playing)
    read = time.monotonic()
    played = _play(record, options, jobs, versions, playing, number) if jobs else 0
    record.finish_pass(number, played)
    return PassResult(number, played, len(jobs), found, read - started,
                      time.monotonic() - read)


# -- which versions play ------------------------------------------------------------------
@dataclass(frozen=True)
class Playing:
    name: str
    version: int
    digest: str
    spec: object


def _accept(record: LadderRecord, options: LadderOptions, found: list[Found],
            number: int) -> list[Playing]:
    """Register what is new, validate new versions, and say who plays this pass."""
    agents = record.agents()
    fresh = []
    for entry in found:
        if not entry.readable or entry.name is None:
            continue
        agent = agents.get(canonical_name(entry.name))
        known = next((v for v in agent.versions if v.digest == entry.digest), None) \
            if agent else None
        if known is None:
            fresh.append(entry)
        elif known.ok:
            if agent is not None and agent.current != known.id:
                record.make_current(agent.name, known.id)   # an earlier version again
        else:
            entry.status = FAILED
            entry.problems = list(known.problems)
            entry.message = (f"as in pass {known.seen_in}: " + "; ".join(
                f"{code}: {message}" for code, message in known.problems))
    submissions.validate(fresh, options.settings, record.seed, options.roster,
                         options.settings.jobs)
    store = store_of(options.db)
    for entry in fresh:
        assert entry.name is not None and entry.digest is not None
        agent = agents.get(canonical_name(entry.name))
        if agent is None:
            _register(record, entry.name, False, number)
            agents = record.agents()
            agent = agents[canonical_name(entry.name)]
        if entry.status == OK:
            _keep(entry, store)
        record.add_version(agent.name, entry.digest, entry.language or "", entry.source,
                           entry.status == OK, entry.problems, number)
    for name in options.references:
        _reference(record, name, number)
    return _playing(record, found, store, options.references)


def _register(record: LadderRecord, name: str, reference: bool, number: int) -> None:
    record.add_agent(name, canonical_name(name), _pseudonym(record, name), reference, number)


def _pseudonym(record: LadderRecord, name: str) -> str:
    """A name for the public board that says nothing of the team: drawn from the ladder's
    seed (no student knows it) and the agent's name, fixed once it is given."""
    taken = {agent.pseudonym for agent in record.agents().values()}
    draw = derive(record.seed, "pseudonym", canonical_name(name))
    base = f"{_ADJECTIVES[draw % len(_ADJECTIVES)]}{_ANIMALS[draw // 97 % len(_ANIMALS)]}"
    pseudonym, count = base, 1
    while pseudonym in taken:
        count += 1
        pseudonym = f"{base}{count}"
    return pseudonym


def kept_place(store: Path, name: str, digest: str) -> Path:
    """Where the store keeps an agent's version: by agent and version (two agents' files
    may hold the same bytes)."""
    return store / hashlib.sha256(f"{canonical_name(name)}\0{digest}".encode()).hexdigest()


def _keep(entry: Found, store: Path) -> None:
    """A passing version's snapshot, kept in the store under its agent and version."""
    assert entry.snapshot is not None and entry.digest is not None and entry.name
    place = kept_place(store, entry.name, entry.digest)
    if place.exists():
        return
    store.mkdir(mode=0o711, exist_ok=True)
    partial = place.with_name(place.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(mode=0o755)
    if entry.snapshot.is_dir():
        shutil.copytree(entry.snapshot, partial / entry.snapshot.name)
    else:
        shutil.copyfile(entry.snapshot, partial / entry.snapshot.name)
    partial.rename(place)


def _reference(record: LadderRecord, name: str, number: int) -> None:
    agents = record.agents()
    agent = agents.get(canonical_name(name))
    if agent is None:
        _register(record, name, True, number)
        agent = record.agents()[canonical_name(name)]
    digest = reference_digest(name)
    if not any(v.digest == digest for v in agent.versions):
        record.add_version(agent.name, digest, Kind.BUILTIN.spelling, name, True, [], number)


def reference_digest(name: str) -> str:
    """A built-in's version: its name's (a built-in changes only with pdharness)."""
    return hashlib.sha256(f"builtin:{name}".encode()).hexdigest()


def _playing(record: LadderRecord, found: list[Found], store: Path,
             references: tuple[str, ...]) -> list[Playing]:
    """Every agent whose current version plays this pass: each reference named this pass,
    and each agent with a submission in the folder (withdrawn otherwise)."""
    present = {canonical_name(entry.name) for entry in found if entry.name}
    playing = []
    for agent in record.agents().values():
        version = next((v for v in agent.versions if v.id == agent.current), None)
        if version is None or not version.ok:
            continue
        if agent.reference:
            if agent.name not in references:
                continue
            spec = builtin_spec(agent.name)
        elif agent.canonical not in present:
            found.append(Found(version.source, agent.name, status=WITHDRAWN,
                               message=f"{line(agent.name)}: no submission in the folder; "
                                       "it plays no new game"))
            continue
        else:
            kept = sorted(kept_place(store, agent.name, version.digest).glob("*"))
            if not kept:
                found.append(Found(version.source, agent.name, status=UNREADABLE,
                                   message=f"{line(agent.name)}: its version "
                                           f"{version.digest[:12]} is missing from {store}"))
                continue
            spec = _as_named(file_spec(kept[0]), agent.name)
        playing.append(Playing(agent.name, version.id, version.digest, spec))
    return sorted(playing, key=lambda p: name_order(p.name))


def _as_named(spec, name: str):
    """SPEC playing under the record's NAME: a version uploaded as `Adamsbrown.py` is still
    agent AdamsBrown (names are one agent in any case), its function found by its own."""
    return spec if spec.name == name else replace(spec, name=name, defines=spec.entry)


# -- the games owed -----------------------------------------------------------------------
def _owed(record: LadderRecord, options: LadderOptions, playing: list[Playing]):
    """The games of every pair of playing versions not yet in the record, as the engine's
    GameJobs (their `round` is the game's number within its pair)."""
    done = record.played_keys()
    seed, length = record.seed, options.settings.length
    jobs, versions = [], {}
    for first, second in combinations(playing, 2):   # in name order: `first` is side a
        versions[first.name, second.name] = (first.version, second.version)
        for number in range(1, options.games_per_pair + 1):
            if (first.version, second.version, number) in done:
                continue
            game_seed = ladder_game_seed(seed, first.name, first.digest, second.name,
                                         second.digest, number)
            jobs.append(GameJob(number, first.name, second.name,
                                game_length(game_seed, length), game_seed))
    return jobs, versions


def _play(record: LadderRecord, options: LadderOptions, jobs, versions, playing,
          number: int) -> int:
    names = {name for job in jobs for name in (job.a, job.b)}
    specs = [p.spec for p in playing if p.name in names]
    settings = options.settings
    pool = HandlePool(specs, settings.isolation)
    played = [0]

    def keep(game) -> None:
        version_a, version_b = versions[game.a, game.b]
        record.add_game(version_a, version_b, game, number)
        played[0] += 1

    try:
        pool.open_all()
        runner = round_runner(pool, settings)
        try:
            runner.play(jobs, on_game=keep)
        finally:
            runner.close()
    finally:
        pool.close()
    return played[0]


# the pseudonyms' words: plain, short, easy to say in a lecture
_ADJECTIVES = ("Amber", "Bold", "Brisk", "Calm", "Clever", "Coral", "Crisp", "Dapper",
               "Eager", "Fair", "Fleet", "Gentle", "Golden", "Hardy", "Jolly", "Keen",
               "Lively", "Lucky", "Mellow", "Merry", "Nimble", "Noble", "Plucky", "Proud",
               "Quick", "Quiet", "Rapid", "Ruby", "Sage", "Silver", "Steady", "Sunny",
               "Swift", "Tidy", "Vivid", "Witty")
_ANIMALS = ("Badger", "Bison", "Crane", "Dingo", "Eagle", "Falcon", "Ferret", "Gecko",
            "Heron", "Ibis", "Jackal", "Koala", "Lemur", "Lynx", "Marten", "Newt",
            "Ocelot", "Otter", "Panda", "Puffin", "Quail", "Raven", "Robin", "Seal",
            "Stoat", "Tapir", "Toucan", "Viper", "Walrus", "Wombat", "Yak", "Zebra")

__all__ = ["COLLISION", "FAILED", "OK", "REFERENCE", "UNREADABLE", "WITHDRAWN"]
