"""Round robins, elimination and standings: invariants of docs/rules.md."""
from hypothesis import given, settings, strategies as st

from harness.agents.specs import resolve
from harness.core.rules import FlipParams, GameLength, GameParams
from harness.core.verdicts import FAULT_KINDS
from harness.engine.results import rank
from harness.engine.rounds import lowest_scorers, round_robin
from harness.engine.tournament import Settings, run_tournament
from harness.isolation.handles.opening import Isolation

names = st.lists(st.text("abcdefgh", min_size=1, max_size=4), min_size=2, max_size=8,
                 unique=True)


@given(names)
def test_a_round_robin_plays_every_pair_once_and_nobody_against_itself(players):
    games = round_robin(players, 1, 10, 0)
    pairs = [(g.a, g.b) for g in games]
    assert len(pairs) == len(players) * (len(players) - 1) // 2
    assert all(a < b for a, b in pairs)
    assert len(set(pairs)) == len(pairs)


@given(st.dictionaries(st.text("xyz", min_size=1, max_size=3), st.integers(0, 20),
                       min_size=1, max_size=8))
def test_all_lowest_scorers_are_dropped_unless_everyone_ties(scores):
    dropped = lowest_scorers(scores)
    low = min(scores.values())
    if len(set(scores.values())) == 1:
        assert dropped == []
    else:
        assert set(dropped) == {n for n, s in scores.items() if s == low}


AGENT_POOL = ["cooperate", "defect", "random", "titfortat", "grudger", "pavlov",
              "titfortwotats", "alternator", "bully", "forgiver"]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(AGENT_POOL), min_size=1, max_size=6, unique=True),
       st.integers(0, 10 ** 6), st.integers(1, 3))
def test_tournament_invariants(players, seed, per_turn):
    settings_ = Settings(game=GameParams(flip=FlipParams(0.1, 0.5), moves_per_turn=per_turn),
                         length=GameLength(3, 8), isolation=Isolation("none"), jobs=1)
    result = run_tournament(resolve(players), seed, settings_)
    standings = result.standings
    assert sorted(s.agent for s in standings) == sorted(players)
    remaining = set(players)
    for r in result.rounds:
        games = [g for g in result.games if g.round == r.number]
        assert len(games) == len(remaining) * (len(remaining) - 1) // 2
        assert set(r.scores) == remaining
        assert all(len(g.turns) == r.game_length for g in games)
        assert 3 <= r.game_length <= 8
        assert set(r.dropped) == set(lowest_scorers(r.scores))
        remaining -= set(r.dropped)
    # it ends with one agent, or with co-winners who all tied the last round
    winners = [s for s in standings if s.dropped_in is None]
    assert set(s.agent for s in winners) == remaining
    if len(remaining) > 1:
        assert len(set(result.rounds[-1].scores.values())) == 1
    # totals are the sums of round scores
    for s in standings:
        assert s.score == sum(r.scores.get(s.agent, 0) for r in result.rounds)
    # best first: later drop ranks higher
    keys = [(0 if s.dropped_in is None else 1, -(s.dropped_in or 0)) for s in standings]
    assert keys == sorted(keys)


def test_standings_break_ties_by_round_score_then_name_and_share_ranks():
    from harness.engine.results import RoundResult

    rounds = [RoundResult(1, 10, {"b": 5, "a": 5, "c": 9, "d": 9}, ["a", "b"]),
              RoundResult(2, 10, {"c": 7, "d": 3}, ["d"])]
    standings = rank(["a", "b", "c", "d"], rounds, {"a": 1, "b": 1, "c": None, "d": 2}, [])
    assert [(s.rank, s.agent, s.score, s.dropped_in) for s in standings] == [
        (1, "c", 16, None), (2, "d", 12, 2), (3, "a", 5, 1), (3, "b", 5, 1)]


def test_a_disqualified_agent_ranks_below_everyone_dropped_in_its_round():
    from harness.engine.results import RoundResult

    rounds = [RoundResult(1, 10, {"cheat": 50, "honest": 5, "winner": 60}, ["cheat", "honest"])]
    standings = rank(["cheat", "honest", "winner"], rounds,
                     {"cheat": 1, "honest": 1, "winner": None}, [], {"cheat"})
    assert [s.agent for s in standings] == ["winner", "honest", "cheat"]


def test_max_rounds_stops_early_and_max_faults_disqualifies(tmp_path):
    liar = tmp_path / "Liar.py"
    liar.write_text("def Liar(hist, score):\n    return None\n")
    settings_ = Settings(isolation=Isolation("none"), jobs=1, max_faults=5,
                         length=GameLength(5, 5))
    result = run_tournament(resolve([str(liar), "titfortat", "defect", "cooperate"]), 3,
                            settings_)
    statuses = {e.name: (e.status, e.message) for e in result.entrants}
    assert statuses["Liar"][0] == "disqualified"
    assert "faults" in statuses["Liar"][1]
    assert result.rounds[0].dropped.count("Liar") == 1
    limited = run_tournament(resolve(["titfortat", "defect", "cooperate", "random"]), 3,
                             Settings(isolation=Isolation("none"), jobs=1, max_rounds=1))
    assert len(limited.rounds) == 1


def test_an_agent_that_does_not_load_leaves_or_plays_the_default_answer(tmp_path):
    broken = tmp_path / "Broken.py"
    broken.write_text("def Broken(:\n")
    specs = resolve([str(broken), "defect", "titfortat"])
    result = run_tournament(specs, 1, Settings(isolation=Isolation("none"), jobs=1,
                                               disqualify_broken=False))   # --keep-broken
    entrant = next(e for e in result.entrants if e.name == "Broken")
    assert entrant.status == "load-error" and "Broken.py:1" in entrant.message
    game = next(g for g in result.games if "Broken" in (g.a, g.b))
    side = "a" if game.a == "Broken" else "b"
    assert all((t.intended_a if side == "a" else t.intended_b) == "CCC" for t in game.turns)
    out = run_tournament(specs, 1, Settings(isolation=Isolation("none"), jobs=1))
    assert all("Broken" not in (g.a, g.b) for g in out.games)
    assert out.standings[-1].agent == "Broken" and out.standings[-1].dropped_in == 0


_fault_games = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(["a", "b", "c", "d"]),
              st.dictionaries(st.tuples(st.sampled_from("ab"), st.integers(0, 4)),
                              st.sampled_from(FAULT_KINDS), max_size=6)),
    max_size=12)


@given(_fault_games)
def test_a_standing_counts_every_fault_of_its_agent_and_no_other(drawn):
    from harness.engine.game import GameRecord
    from harness.isolation.handles.agent_handle import Fault

    games = []
    for a, b, faults in drawn:
        game = GameRecord(1, a, b, 5, 0)
        game.fault_at.update({where: Fault(kind, "x") for where, kind in faults.items()})
        games.append(game)
    names = ["a", "b", "c"]   # "d" plays too, as an agent dropped earlier would: not tallied
    standings = rank(names, [], {name: None for name in names}, games)
    assert sorted(s.agent for s in standings) == names
    for standing in standings:
        expected = {kind: 0 for kind in FAULT_KINDS}
        for game in games:
            for side, player in (("a", game.a), ("b", game.b)):
                if player == standing.agent:
                    for _turn, fault in game.faults(side):
                        expected[fault.kind] += 1
        assert standing.faults == expected
