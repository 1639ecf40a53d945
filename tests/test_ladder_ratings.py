"""The ladder's ratings and seeds are functions of the record alone: the order games are
given in (their completion order) changes nothing, and a game's seed follows the two
agents' canonical names and versions, whichever side each is given on."""
from hypothesis import given, settings, strategies as st

from harness.core.seeds import ladder_game_seed
from harness.run.ladder.ratings import rate

NAMES = ["adamsbrown", "chendiaz", "evansford", "titfortat"]
games = st.lists(st.tuples(st.integers(1, 4), st.sampled_from(NAMES), st.sampled_from(NAMES),
                           st.integers(0, 3), st.integers(0, 90), st.integers(0, 90))
                 .filter(lambda g: g[1] != g[2]), max_size=25, unique_by=lambda g: g[:4])


def keyed(found):
    return [((owed_in, a, b, number), owed_in, a, b, score_a, score_b)
            for owed_in, a, b, number, score_a, score_b in found]


@settings(max_examples=60, deadline=None)
@given(games, st.randoms(use_true_random=False))
def test_ratings_do_not_depend_on_the_order_games_finished_in(found, shuffler):
    rows = keyed(found)
    shuffled = rows[:]
    shuffler.shuffle(shuffled)
    first, second = rate(rows, NAMES), rate(shuffled, NAMES)
    assert first.now == second.now and first.history == second.history


def test_a_higher_score_raises_a_rating_and_a_tie_keeps_them_level():
    rated = rate(keyed([(1, "adamsbrown", "chendiaz", 1, 30, 10)]), NAMES)
    assert rated.now["adamsbrown"].mu > 25 > rated.now["chendiaz"].mu
    tied = rate(keyed([(1, "adamsbrown", "chendiaz", 1, 20, 20)]), NAMES)
    assert tied.now["adamsbrown"].mu == tied.now["chendiaz"].mu
    assert tied.now["adamsbrown"].sigma < tied.now["titfortat"].sigma   # it played


def test_a_game_seed_follows_canonical_names_and_versions():
    seed = ladder_game_seed(7, "AdamsBrown", "v1", "ChenDiaz", "v2", 1)
    assert seed == ladder_game_seed(7, "chendiaz", "v2", "ADAMSBROWN", "v1", 1)
    others = {ladder_game_seed(7, "AdamsBrown", "v1", "ChenDiaz", "v3", 1),
              ladder_game_seed(7, "AdamsBrown", "v1", "ChenDiaz", "v2", 2),
              ladder_game_seed(8, "AdamsBrown", "v1", "ChenDiaz", "v2", 1)}
    assert seed not in others and len(others) == 3
