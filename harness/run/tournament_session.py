"""A run as the command line makes it: the tournament (recorded round by round with --db,
with a progress bar on a terminal), then its replicates; and `resume`, which finishes a
recorded run from its last completed round."""
from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

from harness.agents.agent_files import file_hash
from harness.agents.bundles import MAX_BUNDLE_MIB, max_mib
from harness.agents.lang import LANGUAGES
from harness.agents.llm import journal
from harness.agents.llm.config import course_declares_key
from harness.agents.llm.record_rows import recorded_config
from harness.agents.specs import ISOLATION_MODES, AgentSpec, Kind
from harness.agents.uploaded_names import played_as
from harness.core.errors import HarnessError, LoadError
from harness.core.safe_text import line
from harness.core.seeds import game_seed, game_seed_as_written
from harness.engine.replay import NotMoves, check_turns, replay
from harness.engine.rounds import draw_length, round_robin
from harness.engine.tournament import TournamentState, run_tournament
from harness.isolation.handles.isolation_settings import Isolation
from harness.isolation.limits import MIB
from harness.store.db import now as timestamp_now
from harness.store.fanout import Fanout
from harness.store.reader import Record
from harness.store.recorder import Recorder

from . import progress
from .replicates import run_replicates
from .round_runner import round_runner


class RecordInterrupted(Exception):
    """Ctrl-C during a recorded run: what is kept, and how to go on."""

    def __init__(self, path, rounds: int, stage: str = "tournament", isolation=None):
        self.path, self.rounds, self.stage = path, rounds, stage
        kept = (f"{rounds} completed round{'s' * (rounds != 1)}" if stage == "tournament"
                else "the finished tournament (its replicates are not done)")
        super().__init__(f"interrupted; {kept} kept in {path}\n"
                         f"pdharness: to finish the run: {resume_command(path, isolation)}")


def resume_command(path, isolation=None) -> str:
    """The command that finishes the run: resume never takes limits from the record (anyone
    may edit it), so limits other than the defaults are given again, from this run's own
    settings."""
    words = ["pdharness", "resume", shlex.quote(str(path))]
    default = Isolation()
    if isolation is not None and isolation.timeout != default.timeout:
        words += ["--timeout", f"{isolation.timeout:g}"]
    if isolation is not None and isolation.memory_limit != default.memory_limit:
        words += ["--memory-limit", str(isolation.memory_limit // MIB)]
    if isolation is not None and isolation.load_timeout != default.load_timeout:
        words += ["--load-timeout", f"{isolation.load_timeout:g}"]
    if max_mib() != MAX_BUNDLE_MIB:
        words += ["--max-bundle-mib", str(max_mib())]
    return " ".join(words)


def run(specs, seed: int, settings, *, db=None, quiet: bool = False, replicates: int = 0,
        command: str | None = None, outputs: str | None = None):
    started = timestamp_now()
    recorder = (Recorder.create(db, specs, seed, settings, replicates, command, outputs)
                if db else None)
    _journal(db, specs)
    if recorder:   # the report of the run and of its record say the same time
        started = recorder.connection.execute("SELECT started_at FROM run").fetchone()[0]
    try:
        result = _tournament(specs, seed, settings, recorder, quiet)
        result.started_at = started
        if replicates:
            _replicates(result, specs, seed, settings, replicates, recorder, quiet)
        if recorder:
            recorder.complete()
        return result
    finally:
        _journal(None, specs)
        if recorder:
            recorder.close()


def _journal(path, specs) -> None:
    """Language models' answers go into the record as they come (harness/agents/llm/journal.py)."""
    if any(spec.kind is Kind.LLM for spec in specs):
        journal.use(path)


def resume(path, isolation, *, jobs: int | None = None, quiet: bool = False,
           allow_weaker: bool = False, cluster: str | None = None):
    """Finish the run recorded in `path`; (result, note for the user or None).

    A record is a file anyone may have edited: how agents are confined (`isolation`: mode,
    time and memory limits) is what the user asks now, never what the record says; a mode
    weaker than the recorded one needs `allow_weaker`, and limits other than the recorded
    ones would not finish the same tournament. What changes results comes from the record,
    checked first against the games it holds."""
    with Record(path) as record:
        if record.finished:
            return record.result(), f"{path}: the run was already complete"
        check_confinement(record, isolation, allow_weaker)
        specs = recorded_specs(record)
        # what agents may import changes results: the record's, like the rules
        isolation = replace(isolation, agent_packages=record.settings.isolation.agent_packages)
        settings = replace(record.settings, isolation=isolation,
                           jobs=jobs or record.settings.jobs, cluster=cluster)
        games = record.games()
        check_games(record, games)
        state = recorded_state(record, games)
        rounds_before = len(state.rounds) if state else 0
        done = record.tournament_done()
        wanted_replicates = record.run["replicates"]
        result = record.result() if done else None
        has_replicates = record.replicates() is not None
        started = record.run["started_at"]
        runtimes = record.runtimes
    recorder = Recorder.reopen(path)
    _journal(path, specs)   # answers of the unfinished round are not asked again
    changed = None
    try:
        if result is None:
            result = _tournament(specs, record.seed, settings, recorder, quiet, state)
            result.started_at = started  # the run's start, as its record and report say
            changed = _runtimes_changed(runtimes, result.runtimes)
            result.runtimes = runtimes   # likewise the runtimes it started with
        if wanted_replicates and not has_replicates:
            _replicates(result, specs, record.seed, settings, wanted_replicates, recorder,
                        quiet)
        recorder.complete()
    finally:
        _journal(None, specs)
        recorder.close()
    if done:
        return result, None
    return result, f"{path}: resumed after round {rounds_before}" + (
        f"; {changed}" if changed else "")


def _runtimes_changed(recorded, now) -> str | None:
    """What a resumed run ran on that differs from the runtimes its record started with
    (their versions are the record's: the earlier rounds were played on them)."""
    if not recorded or not now:
        return None

    changed = [f"{line(str(recorded[name]))} then, {now[name]} now"
               for name in now if name in recorded and recorded[name] != now[name]]
    return ("its agents' runtimes changed since it started (" + "; ".join(changed)
            + "): the rounds before and after may differ") if changed else None


def _tournament(specs, seed, settings, recorder, quiet, state=None):
    bar = progress.TournamentProgress(settings) if progress.wanted(quiet) else None
    try:
        result = run_tournament(specs, seed, settings, Fanout(recorder, bar), state,
                                runner_for=round_runner)
    except KeyboardInterrupt:
        if recorder is None:
            raise
        raise RecordInterrupted(recorder.path, recorder.rounds_kept(),
                                isolation=settings.isolation) from None
    finally:
        if bar:
            bar.close()
    if recorder:
        recorder.finished(result)
    return result


def _replicates(result, specs, seed, settings, count, recorder, quiet) -> None:
    bar = progress.CountProgress("replicates") if progress.wanted(quiet) else None
    try:
        result.replicates = run_replicates(specs, seed, settings, count, settings.jobs, bar)
    except KeyboardInterrupt:
        if recorder is None:
            raise
        raise RecordInterrupted(recorder.path, recorder.rounds_kept(), "replicates",
                                settings.isolation) from None
    finally:
        if bar:
            bar.close()
    if recorder:
        recorder.replicates_finished(result.replicates)


# -- what resume needs from the record -------------------------------------------------------
def check_confinement(record, asked, allow_weaker: bool) -> None:
    """HarnessError when the user's isolation is weaker than the recorded one (unless
    allowed), or the limits differ from the recorded ones (they change results)."""
    recorded = record.settings.isolation
    check_isolation(record.path, recorded.mode, asked.mode, allow_weaker)
    for option, now, then, unit in (
            ("--timeout", asked.timeout, recorded.timeout, 1),
            ("--load-timeout", asked.load_timeout, recorded.load_timeout, 1),
            ("--memory-limit", asked.memory_limit, recorded.memory_limit, MIB)):
        if now != then:
            raise HarnessError(
                f"{record.path}: the run was recorded with {option} {_shown(then / unit)} "
                f"and this resume asks {_shown(now / unit)}; give {option} "
                f"{_shown(then / unit)} to finish the same tournament")
    check_bundle_limit(record.path, record.max_bundle_mib)


def check_bundle_limit(path, recorded: int | None, what: str = "tournament") -> None:
    """HarnessError when bundles open under another --max-bundle-mib than the recorded
    one: a bundle refused then would play now (or the reverse), and so it would not be the
    same `what`. A record made before the limit was kept (None) is not checked."""
    asked = max_mib()
    if recorded is not None and recorded != asked:
        raise HarnessError(
            f"{path}: the {'run' if what == 'tournament' else what} was recorded with "
            f"--max-bundle-mib {recorded} and this resume asks {asked}; give "
            f"--max-bundle-mib {recorded} to finish the same {what}")


def check_isolation(path, recorded: str, asked: str, allow_weaker: bool) -> None:
    """HarnessError when `asked` protects less than `recorded` (an unknown recorded mode
    counts as the strongest) and that was not explicitly allowed."""
    mode = recorded if recorded in ISOLATION_MODES else ISOLATION_MODES[0]
    if ISOLATION_MODES.index(asked) > ISOLATION_MODES.index(mode) and not allow_weaker:
        raise HarnessError(
            f"{path}: the run was recorded with --isolation {mode}; resuming with "
            f"--isolation {asked} protects less: give --allow-weaker-isolation to do it")


def _shown(number: float) -> str:
    return f"{number:g}"


def check_games(record, games) -> None:
    """HarnessError unless every recorded game is what the recorded parameters and seed
    make of the moves the agents intended: the round robin of the agents that played each
    round (pairs, lengths, seeds), and each game's flips and score. A record edited since
    (parameters or games) would not resume the same tournament."""
    settings, seed = record.settings, record.seed
    lengths = {r.number: r.game_length for r in record.rounds()}
    by_round: dict[int, list] = {}
    for game in games:
        by_round.setdefault(game.round, []).append(game)
    for number, played in by_round.items():
        _older_seeds(record, played, seed)
        length = draw_length(seed, number, settings.length)
        names = {name for game in played for name in (game.a, game.b)}
        expected = {(job.a, job.b): job for job in
                    round_robin(names, number, length, seed, settings.length)}
        if lengths.get(number) != length or set(expected) != {(g.a, g.b) for g in played}:
            _mismatch(record, f"round {number}: its games or their length")
        for game in played:
            job = expected[game.a, game.b]
            where = f"round {number}, {game.a} vs {game.b}"
            if (game.length, game.seed) != (job.length, job.seed) or \
                    len(game.intended_a) != game.length:
                _mismatch(record, f"{where}: its length or seed")
            if not _replays(game, settings.game):
                _mismatch(record, f"{where}: its flips, default answers or score")


def _replays(game, params) -> bool:
    """Whether the game's flips and score are what `params` and its seed make of the moves
    its agents intended (and its faulty turns played the default answer)."""
    intended = {"a": game.intended_a, "b": game.intended_b}
    faulty = [(side, turn - 1) for side in "ab" for turn, _ in game.faults(side)]
    try:
        check_turns(intended, game.length, params)
        again = replay(game.a, game.b, intended, faulty, game.length, game.seed, params,
                       game.round)
    except NotMoves:
        return False
    return (again.played_a, again.played_b, again.score) == (
        game.played_a, game.played_b, game.score)


def _older_seeds(record, games, seed: int) -> None:
    """HarnessError for a record whose games are seeded from names as written, as
    pdharness did before seeds followed names case-folded: no edit, an older version."""
    if any(game.seed == game_seed_as_written(seed, game.round, game.a, game.b)
           != game_seed(seed, game.round, game.a, game.b) for game in games):
        raise HarnessError(
            f"{record.path}: the run was recorded by an older pdharness "
            f"({record.run['harness_version']}), whose game seeds followed agents' names "
            "as written; this one folds their case (so every spelling of a name plays the "
            "same games), and would not finish the same tournament: finish it with the "
            "version that started it, or run it again")


def _mismatch(record, what: str):
    raise HarnessError(
        f"{record.path}: the record does not match its own parameters ({what}); it was "
        "changed after the run, and resuming it would not finish the same tournament")


def recorded_specs(record):
    """The agents as the run started them; their files must still be there, unchanged
    (a changed agent would make the resumed run a different tournament)."""
    specs = []
    for row in record.agent_rows():
        kind = Kind.of(row["language"], row["source"])
        if kind is Kind.LLM:   # as declared when the run started (its framing too)
            config = recorded_config(record.connection, row["name"])
            if config is None:
                raise HarnessError(f"{record.path}: agent {row['name']}: its model's "
                                   "declaration is not in the record")

            if config.api_key_env and not course_declares_key(config):
                # the record (anyone may edit it) would choose which secret goes where
                raise HarnessError(f"{record.path}: agent {row['name']}: its model sends the "
                                   f"key in ${config.api_key_env} to {config.base_url}; "
                                   "name the course file that declares it (--config FILE)")
            specs.append(AgentSpec(row["name"], row["language"], row["source"], llm=config))
            continue
        if kind.strategy and row["path"] is None:
            specs.append(AgentSpec(row["name"], row["language"], row["source"]))
            continue
        if row["path"] is None:
            raise HarnessError(f"{record.path}: agent {row['name']} was a {row['language']} "
                               "given from Python; such a run cannot be resumed")
        path = Path(row["path"])
        if not (path.is_file() or path.is_dir()):   # a file, or a bundle's folder
            raise HarnessError(f"{record.path}: agent {row['name']}: {path} is gone; put it "
                               "back to resume the run")
        if kind.strategy:  # a Q-table agent: its model file
            spec = AgentSpec(row["name"], row["language"], row["source"])
            played = file_hash(path)
        else:
            # as given on the command line, when that still names the file (so the result
            # prints the same source), else where the file is; the bytes checked here are
            # the bytes the resumed run plays (AgentSpec.content)
            given = Path(row["source"])
            source = row["source"] if given.exists() and given.resolve() == path else str(path)
            spec = AgentSpec(row["name"], row["language"], source,
                             defines=_played_as(path, row["language"]))
            played = spec.sha256()
            # a bundle that could not be read when the run started (its digest none) is
            # the same broken agent now; one read then says why it cannot be read now
            if played is None and spec.is_bundle and row["sha256"] is not None:
                _check_bundle_opens(record, row["name"], spec)
        if played != row["sha256"]:
            raise HarnessError(f"{record.path}: agent {row['name']}: {path} changed since the "
                               "run started; the resumed run would not be the same tournament")
        specs.append(spec)
    return specs


def _check_bundle_opens(record, name: str, spec) -> None:
    """A bundle that cannot be read now says why (a lower --max-bundle-mib than the run's,
    say), not that it changed."""
    try:
        spec.bundle()
    except LoadError as refused:
        raise HarnessError(f"{record.path}: agent {name}: {refused}; the run cannot resume "
                           "without it") from None


def _played_as(path, language: str) -> str | None:
    """The agent a file an LMS renamed played as (its name is not the agent's): the same
    rule as when the run started, on the same bytes (checked just after)."""
    return played_as(path, LANGUAGES[language]) if language in LANGUAGES else None


def recorded_state(record, games=None):
    """The tournament's state after its last completed round (None before round 1)."""
    rounds = record.rounds()
    if not rounds:
        return None
    dropped_in = record.dropped_in()
    disqualified = {row["name"]: row["disqualified"] for row in record.agent_rows()
                    if row["disqualified"]}
    remaining = sorted(name for name, out in dropped_in.items() if out is None)
    return TournamentState(remaining, dropped_in, rounds,
                           record.games() if games is None else games, disqualified)
