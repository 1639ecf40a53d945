"""The Levinson tournament: round robins, dropping the lowest scorers, until one is left.

A run is a loop over `TournamentState`, which holds everything needed to go on, so a run
recorded round by round can be resumed where it stopped.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.agents.specs import runtime_versions
from harness.core.fault_policy import FAULT_POLICY
from harness.core.rules import GameLength, GameParams
from harness.core.verdicts import Status
from harness.isolation.handles.isolation_settings import Isolation

from .results import Entrant, RoundResult, TournamentResult, fault_counts, rank, settle_statuses
from .rounds import draw_length, lowest_scorers, round_robin, round_scores


@dataclass(frozen=True)
class Settings:
    """Everything a tournament runs by besides its agents and seed: made from the command
    line's values by parameters.settings, from a record by harness/store/settings_columns.py
    (the record's one mapping, both ways); the JSON "params" object is the parameter table's
    view of it (parameters.as_json)."""

    game: GameParams = field(default_factory=GameParams)
    length: GameLength = field(default_factory=GameLength)
    isolation: Isolation = field(default_factory=Isolation)
    jobs: int | None = None              # None: every core
    max_rounds: int | None = None
    max_faults: int | None = None        # disqualify after this many faults
    # agents that do not load leave before round 1 and rank below every agent that loads
    # (--keep-broken: they play the default answer throughout, as before they were disqualified); a record
    # keeps it (its disqualify_broken column), so resume plays by the rule the run began with
    disqualify_broken: bool = True
    cluster: str | None = None           # a Dask scheduler: the games play on its workers


@dataclass
class TournamentState:
    remaining: list[str]
    dropped_in: dict[str, int | None]
    rounds: list[RoundResult] = field(default_factory=list)
    games: list = field(default_factory=list)
    disqualified: dict[str, str] = field(default_factory=dict)

    @property
    def next_round(self) -> int:
        return len(self.rounds) + 1


class Observer:
    """Hooks for records and progress; every method is optional."""

    def tournament_started(self, result: TournamentResult) -> None: ...
    def game_finished(self, game) -> None: ...
    def round_finished(self, state: TournamentState, round_result: RoundResult, games) -> None: ...


def run_tournament(specs, seed: int, settings: Settings = Settings(),
                   observer: Observer | None = None,
                   state: TournamentState | None = None,
                   runner_for=None, known_broken: dict | None = None) -> TournamentResult:
    """`runner_for(pool, settings)` makes what plays a round's games; the default plays them
    here. The cluster's runner lives above the engine (harness.run.round_runner passes it in),
    so that the engine imports nothing of how runs are spread. `known_broken`: {agent: why
    it does not load} found before (a worker's copy of what its monitor could not read)."""
    from .runners import HandlePool  # `pdharness` starts light

    observer = observer or Observer()
    pool = HandlePool(specs, settings.isolation)
    pool.broken.update(known_broken or {})   # never opened
    load_errors = pool.open_all()
    entrants = [Entrant(spec, Status.LOAD_ERROR, load_errors[spec.name])
                if spec.name in load_errors
                else Entrant(spec) for spec in specs]
    result = TournamentResult(seed, settings, entrants, load_errors=load_errors)

    result.runtimes = runtime_versions(specs)   # on a cluster, every worker's are these
    state = state or _first_state(entrants, settings)
    result.rounds, result.games = state.rounds, state.games
    observer.tournament_started(result)
    runner = (runner_for or _local_runner)(pool, settings)
    try:
        while goes_on(state, settings):
            _play_round(state, seed, settings, runner, observer)
    finally:
        runner.close()
    for entrant in entrants:
        entrant.output = pool.output(entrant.name)
    settle_statuses(entrants, state.games, state.disqualified, state.dropped_in)
    result.standings = rank([e.name for e in entrants], state.rounds, state.dropped_in,
                            state.games, set(state.disqualified))
    return result


def _local_runner(pool, settings):
    if settings.cluster:   # a programming error: a cluster's runner is passed in
        raise ValueError("a tournament on a cluster needs runner_for=harness.run.round_runner")
    from .runners import make_runner  # `pdharness` starts light

    return make_runner(pool, settings.game, settings.jobs)


def _first_state(entrants, settings) -> TournamentState:
    playing = [e.name for e in entrants
               if FAULT_POLICY.plays_from_start(e.status, settings.disqualify_broken)]
    dropped: dict[str, int | None] = {e.name: 0 for e in entrants if e.name not in playing}
    dropped.update({name: None for name in playing})
    return TournamentState(sorted(playing), dropped)


def goes_on(state, settings) -> bool:
    if len(state.remaining) < 2:
        return False
    if settings.max_rounds is not None and state.next_round > settings.max_rounds:
        return False
    return not (state.rounds and not state.rounds[-1].dropped)  # all tied: co-winners


def _play_round(state, seed, settings, runner, observer) -> None:
    number = state.next_round
    length = draw_length(seed, number, settings.length)
    games = runner.play(round_robin(state.remaining, number, length, seed, settings.length),
                        on_game=observer.game_finished)
    scores = round_scores(state.remaining, games)
    dropped = lowest_scorers(scores)
    newly_out = _over_fault_limit(state, games, settings)
    dropped = sorted(set(dropped) | set(newly_out))
    result = RoundResult(number, length, scores, dropped)
    state.rounds.append(result)
    state.games.extend(games)
    for name in dropped:
        state.dropped_in[name] = number
    state.remaining = [name for name in state.remaining if name not in dropped]
    runner.release(dropped)
    observer.round_finished(state, result, games)


def _over_fault_limit(state, games, settings) -> list[str]:
    """Agents the fault policy disqualifies for their faults so far (--max-faults): out at
    the end of this round."""
    if settings.max_faults is None:
        return []

    counts = fault_counts([*state.games, *games], state.remaining)
    out = []
    for name in state.remaining:
        total = sum(counts[name].values())
        reason = FAULT_POLICY.over_fault_limit(total, settings.max_faults)
        if reason is not None:
            state.disqualified[name] = reason
            out.append(name)
    return out
