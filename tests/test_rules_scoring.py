"""Scoring has one home, `harness.core.rules.Scorer`: the game's record, the agent's own running
score (harness/agents/runtime.py) and the record reader's recomputation all agree with it, for any
payoff table, moves per turn and flips."""
from hypothesis import given, settings, strategies as st

from harness.core.rules import FlipParams, GameLength, GameParams, Payoffs, Scorer

from conftest import score_pairs

moves = st.sampled_from("CD")


@st.composite
def payoff_tables(draw):
    s = draw(st.integers(-20, 20))
    p = s + draw(st.integers(1, 10))
    r = p + draw(st.integers(1, 10))
    t = draw(st.integers(r + 1, 2 * r - s - 1))     # keeps 2R > T + S
    return Payoffs(t, r, p, s)


@st.composite
def turns(draw, per_turn=None):
    """(per_turn, [(mine, theirs)]): turns as the game plays them, strings of equal length."""
    per_turn = per_turn or draw(st.integers(1, 6))
    side = st.text(alphabet="CD", min_size=per_turn, max_size=per_turn)
    return per_turn, draw(st.lists(st.tuples(side, side), max_size=30))


@given(payoff_tables(), turns())
def test_a_turn_scores_as_its_moves_do_one_at_a_time(payoffs, played):
    _per_turn, history = played
    score = Scorer(payoffs)
    table = payoffs.table()
    for mine, theirs in history * 2:       # twice: what it remembers is what it computed
        assert score(mine, theirs) == (
            sum(table[m, t][0] for m, t in zip(mine, theirs, strict=True)),
            sum(table[m, t][1] for m, t in zip(mine, theirs, strict=True)))
        assert score(theirs, mine) == score(mine, theirs)[::-1]
    pairs = [pair for mine, theirs in history for pair in zip(mine, theirs, strict=True)]
    assert score_pairs(pairs, payoffs) == tuple(
        map(sum, zip((0, 0), *(score(m, t) for m, t in history), strict=True)))


def _running(game, payoffs):
    """Each turn's running score, recomputed from the played moves with rules alone."""
    out, pairs = [], []
    for turn in game.turns:
        pairs += zip(turn.played_a, turn.played_b, strict=True)
        out.append(score_pairs(pairs, payoffs))
    return out


class _Watcher:
    """Wraps a handle of the monitor's own runtime: keeps the running score the agent is
    shown at each call, as its AgentRuntime computed it."""

    def __init__(self, handle):
        self.handle, self.name, self.seen = handle, handle.name, []

    def start_game(self, start):
        self.handle.start_game(start)

    def request(self, last):
        self.handle.request(last)
        runtime = self.handle.runtime
        self.seen.append((runtime.mine, runtime.theirs))

    def collect(self):
        return self.handle.collect()

    def end_game(self):
        self.handle.end_game()


@settings(max_examples=25, deadline=None)
@given(payoff_tables(), st.integers(1, 4), st.integers(1, 25), st.integers(0, 2 ** 32),
       st.floats(0, 1), st.sampled_from(["Counter", "Gambler"]))
def test_the_game_the_runtime_and_the_rules_score_alike(payoffs, per_turn, length, seed,
                                                        flip, opponent):
    from harness.agents.specs import builtin_spec, resolve_one
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle

    from conftest import AGENTS

    params = GameParams(FlipParams(flip, 0.0), per_turn, payoffs)
    isolation = Isolation("none", 5.0)
    (spec,) = resolve_one(str(AGENTS / "core" / f"{opponent}.py"), [])
    first = _Watcher(open_handle(spec, isolation))
    second = open_handle(builtin_spec("random"), isolation)
    try:
        game = play_game(first, second, length, seed, params)
    finally:
        first.handle.close()
        second.close()
    running = _running(game, payoffs)
    assert [turn.score for turn in game.turns] == running
    assert game.score == running[-1]
    # the agent is shown the score before each turn: (0, 0), then the game's running score
    assert first.seen == [(0, 0)] + running[:-1]


@settings(max_examples=10, deadline=None)
@given(payoff_tables(), st.integers(1, 3), st.integers(0, 2 ** 32))
def test_the_record_reader_recomputes_what_the_game_recorded(tmp_path_factory, payoffs,
                                                             per_turn, seed):
    from harness.agents.specs import builtin_spec
    from harness.engine.tournament import Settings
    from harness.isolation.handles.opening import Isolation
    from harness.run import tournament_session as session
    from harness.store.reader import Record

    path = tmp_path_factory.mktemp("scoring") / "run.sqlite"
    chosen = Settings(game=GameParams(FlipParams(0.3, 0.0), per_turn, payoffs),
                      length=GameLength(3, 12), isolation=Isolation("none", 5.0), jobs=1,
                      max_rounds=2)
    specs = [builtin_spec(name) for name in ("random", "titfortat", "pavlov")]
    live = session.run(specs, seed, chosen, db=path, quiet=True)
    with Record(path) as record:
        read = record.games()
    assert [(g.a, g.b, g.score) for g in read] == [(g.a, g.b, g.score) for g in live.games]
    for game, played in zip(read, live.games, strict=True):
        recomputed = [turn.score for turn in game.turns]
        assert recomputed == [turn.score for turn in played.turns] == _running(game, payoffs)
        assert recomputed[-1] == game.score
