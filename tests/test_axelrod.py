"""`axelrod:NAME` agents: Axelrod's strategies played by pdharness.

The library is imported once a session (the `axelrod` fixture) and the games here run in
this process, so the Axelrod host is started once for the whole file; only the tests that
must go through the console script start another."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from harness.core.rules import FlipParams, GameParams

from conftest import run_cli

NO_NOISE_CLASSIC = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=1)

# deterministic strategies (checked against the catalogue below), one pair a row
PAIRS = [
    ("TitForTat", "Alternator"), ("Grudger", "Alternator"),
    ("WinStayLoseShift", "SuspiciousTitForTat"), ("TitFor2Tats", "Bully"),
    ("FirstByTidemanAndChieruzzi", "Defector"), ("FirstByDavis", "CyclerCCD"),
    ("SecondByWhite", "TitForTat"), ("FirstByShubik", "Alternator"),
    ("Prober", "TitForTat"), ("HardTitForTat", "CyclerDDC"),
    ("ForgetfulGrudger", "AntiTitForTat"), ("Gradual", "Defector"),
    ("SecondByTidemanAndChieruzzi", "Cooperator"), ("EvolvedFSM4", "Punisher"),
]


def _spec(name):
    from harness.agents.specs import resolve_one

    [spec] = resolve_one(f"axelrod:{name}")
    return spec


def _game(first, second, turns, params, seed=11):
    """One pdharness game of two axelrod: agents: {class name: its played moves}."""
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle

    specs = sorted((_spec(first), _spec(second)), key=lambda spec: spec.name)
    handles = [open_handle(spec, Isolation("process")) for spec in specs]
    try:
        record = play_game(handles[0], handles[1], turns, seed, params)
    finally:
        for handle in handles:
            handle.close()
    names = [spec.source.partition(":")[2] for spec in specs]
    return {names[0]: "".join(record.played_a), names[1]: "".join(record.played_b)}, record


def test_the_pairs_are_deterministic_strategies_of_the_catalogue():
    from harness.agents.axelrod_strategies import catalogue

    known = catalogue()
    for pair in PAIRS:
        for name in pair:
            assert not known[name].stochastic and not known[name].long_run_time, name
    assert len(PAIRS) >= 10


@pytest.mark.parametrize("first, second", PAIRS)
def test_a_classic_game_is_axelrods_match(axelrod, first, second):
    """With one move a turn and no noise, the moves are axelrod.Match's, the game's length
    hidden from the strategies as Axelrod hides it (`length: -1`)."""
    turns = 60
    ours, _ = _game(first, second, turns, NO_NOISE_CLASSIC)
    players = (getattr(axelrod, first)(), getattr(axelrod, second)())
    theirs = axelrod.Match(players, turns=turns, match_attributes={"length": -1}).play()
    assert ours[first] == "".join(str(pair[0]) for pair in theirs)
    assert ours[second] == "".join(str(pair[1]) for pair in theirs)


# Axelrod's strategy and the pdharness built-in of the same classic definition
SAME_AS_BUILTIN = [("TitForTat", "titfortat"), ("Grudger", "grudger"),
                   ("WinStayLoseShift", "pavlov"), ("TitFor2Tats", "titfortwotats"),
                   ("SuspiciousTitForTat", "suspicioustitfortat"), ("Bully", "bully")]


@pytest.mark.parametrize("moves_per_turn", [2, 3, 5])
def test_several_moves_a_turn_follow_the_builtins_rule(axelrod, moves_per_turn):
    """The documented rule (docs/axelrod.md): move n answers the game as it stood one turn
    earlier, told move by move, so Axelrod's strategy plays as pdharness's built-in of the
    same definition at every number of moves a turn, noise and all."""
    from harness.agents.specs import resolve_one
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle

    params = GameParams(flip=FlipParams(0.2, 0.0), moves_per_turn=moves_per_turn)
    opponents = ["random", "alternator", "titfortat"]
    for axelrod_name, builtin in SAME_AS_BUILTIN:
        for opponent in opponents:
            played = []
            for mine in (f"axelrod:{axelrod_name}", builtin):
                # the same side and the same seed: the flips fall alike
                handles = [open_handle(resolve_one(name)[0], Isolation("process"))
                           for name in (mine, opponent)]
                handles[0].name = "a-player"
                try:
                    record = play_game(handles[0], handles[1], 25, 7, params)
                finally:
                    for handle in handles:
                        handle.close()
                played.append((record.intended_a, record.played_b))
            assert played[0] == played[1], (axelrod_name, opponent)


def test_the_seed_decides_a_stochastic_strategys_moves(axelrod):
    """Each game seeds the strategy from the agent's game seed: the same seed, the same
    moves; another seed, other moves."""
    params = GameParams(flip=FlipParams(0.0, 0.0), moves_per_turn=3)
    one, _ = _game("Random", "TitForTat", 40, params, seed=5)
    again, _ = _game("Random", "TitForTat", 40, params, seed=5)
    other, _ = _game("Random", "TitForTat", 40, params, seed=6)
    assert one == again
    assert one != other


def test_the_catalogue_is_the_installed_librarys(axelrod):
    """harness/agents/axelrod_strategies.json (what list-strategies and every check read,
    without importing the library) says what the library says."""
    from harness.agents.axelrod_strategies import CATALOGUE
    from harness.isolation.axelrod_host import catalogue

    assert json.loads(CATALOGUE.read_text()) == catalogue()


def test_a_population_and_a_tournament_take_axelrod_agents(axelrod, tmp_path):
    from harness.agents.population import population_specs
    from harness.engine.tournament import Settings, run_tournament
    from harness.isolation.handles.isolation_settings import Isolation

    path = tmp_path / "population.json"
    path.write_text(json.dumps({"types": [
        {"id": "tft", "agent": "axelrod:TitForTat", "count": 2},
        {"id": "defector", "agent": "axelrod:Defector", "count": 1},
        {"id": "coop", "agent": "cooperate", "count": 1}]}))
    specs = population_specs(path)
    assert [spec.source for spec in specs[:3]] == ["axelrod:TitForTat"] * 2 + ["axelrod:Defector"]
    settings = Settings(isolation=Isolation("process"), jobs=2)
    result = run_tournament(specs, 3, settings)
    assert {standing.agent for standing in result.standings} == {spec.name for spec in specs}
    assert not any(game.fault_at for game in result.games)
    # same seed, same result, with other jobs (an axelrod: agent's seed is its game's)
    again = run_tournament(specs, 3, Settings(isolation=Isolation("none"), jobs=2))
    assert again.pairs() == result.pairs()


@pytest.mark.parametrize("argument, says", [
    ("axelrod:TitForTatt", "did you mean axelrod:TitForTat"),
    ("axelrod:NoSuchThing", "list-strategies"),
    ("axelrod:DBS", "--allow-long-run"),
    ("axelrod:Darwin", "cheating"),
    ("Gradual", "did you mean axelrod:Gradual"),
])
def test_a_refused_axelrod_name_is_one_line(argument, says):
    """Unknown, long-running or cheating: one line on stderr, exit 2, before anything runs
    (the catalogue answers: the library is not imported)."""
    status, _out, err = run_cli("play", argument, "defect", "--turns", "2")
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert says in err


def test_list_strategies_shows_the_classifier():
    status, out, _err = run_cli("list-strategies", "--format", "json")
    assert status == 0
    listed = {entry["name"]: entry for entry in json.loads(out)["strategies"]}
    assert len(listed) == 241
    assert listed["axelrod:TitForTat"] == {
        "name": "axelrod:TitForTat", "label": "Tit For Tat", "memory_depth": 1,
        "stochastic": False, "long_run_time": False, "cheats": False}
    assert listed["axelrod:DBS"]["long_run_time"] is True
    status, out, _err = run_cli("list-strategies", "--short-run-only")
    assert status == 0 and "axelrod:DBS " not in out and "axelrod:TitForTat " in out


TIT_FOR_TAT_FILES = {
    "py": "def {name}(hist, score):\n    return [hist[-1][1] if hist else 'C'] * 1\n",
    "hy": "(defn {name} [hist score]\n  [(if hist (get (get hist -1) 1) \"C\")])\n",
    "lisp": "(defun {name} (hist score)\n  (declare (ignore score))\n"
            "  (list (if hist (second (car (last hist))) 'C)))\n",
}


def test_a_students_file_is_an_axelrod_player_in_axelrods_tournament(axelrod, tmp_path,
                                                                       sandboxed):
    """harness.axelrod.Player: the file sandboxed as in a tournament, playing Axelrod's own
    Tournament (its matches, its noise-free moves, its clones)."""
    from harness.axelrod import Player

    path = tmp_path / "ChenDiaz.py"
    path.write_text(TIT_FOR_TAT_FILES["py"].format(name="ChenDiaz"))
    student = Player.from_file(path)
    players = [student, axelrod.Cooperator(), axelrod.Defector()]
    results = axelrod.Tournament(players, turns=12, repetitions=1, seed=4).play(
        processes=None, progress_bar=False)
    assert results.players[0] == "ChenDiaz"
    assert results.cooperation[0][1] == 12     # tit for tat against a cooperator
    assert results.cooperation[0][2] == 1      # ... and against a defector: C first only
    assert results.cooperation[2][0] == 0
    student.close()


def test_students_in_three_languages_play_axelrod_strategies(axelrod, tmp_path, sandboxed,
                                                             sbcl):
    """A student's tit for tat in Python, Hy and Lisp, sandboxed, against Axelrod's
    TitForTat and Defector, through the console script: no fault, and the classic scores
    (all cooperation with TitForTat; C then D with Defector)."""
    files = []
    for language, text in TIT_FOR_TAT_FILES.items():
        name = {"py": "ChenDiaz", "hy": "LopezMorris", "lisp": "KhanOkafor"}[language]
        path = tmp_path / f"{name}.{language}"
        path.write_text(text.format(name=name))
        files.append(str(path))
    status, out, err = run_cli("tournament", *files, "axelrod:TitForTat", "axelrod:Defector",
                               "--moves-per-turn", "1", "--flip", "0", "0", "--seed", "2",
                               "--max-rounds", "1", "--isolation", "sandbox", "--format",
                               "json", "--load-timeout", "120", "--timeout", "10",
                               timeout=900)   # limits no loaded machine reaches: scores here
    assert status == 0, err
    result = json.loads(out)
    assert all(agent["status"] == "ok" for agent in result["agents"]), result["agents"]
    length = result["rounds"][0]["game_length"]
    students = {"ChenDiaz", "LopezMorris", "KhanOkafor"}
    for game in result["games"]:
        assert game["faults"] == {"a": 0, "b": 0}
        pair = {game["a"], game["b"]}
        if pair & students and "axelrod:TitForTat" in pair:
            assert game["score"] == [3 * length, 3 * length]
        if pair & students and "axelrod:Defector" in pair:
            student_side = 0 if game["a"] in students else 1
            assert game["score"][student_side] == length - 1
            assert game["score"][1 - student_side] == 5 + (length - 1)


def test_the_adapters_player_in_axelrods_moran_process_and_fingerprint(axelrod, tmp_path):
    """The library's own MoranProcess and AshlockFingerprint take the adapter's player."""
    from harness.axelrod import Player

    path = tmp_path / "ChenDiaz.py"
    path.write_text(TIT_FOR_TAT_FILES["py"].format(name="ChenDiaz"))
    student = Player.from_file(path, isolation="process")
    moran = axelrod.MoranProcess([student, axelrod.Cooperator(), axelrod.Defector()],
                                 turns=10, seed=3)
    moran.play()
    assert moran.winning_strategy_name in {"ChenDiaz", "Cooperator", "Defector"}
    again = axelrod.MoranProcess([Player.from_file(path, isolation="process"),
                                  axelrod.Cooperator(), axelrod.Defector()], turns=10, seed=3)
    again.play()
    assert again.populations == moran.populations   # seeded: the same process
    fingerprint = axelrod.AshlockFingerprint(student, axelrod.TitForTat).fingerprint(
        turns=10, repetitions=1, step=0.5, progress_bar=False)
    assert len(fingerprint) == 9
    # against a tit for tat probe with no noise (x = y = 0), tit for tat cooperates
    assert min(fingerprint.items())[1] == 3.0
    student.close()


def test_shell_completion_offers_axelrod_names():
    from harness.cli.completion import complete_agents

    offered = [item.value for item in complete_agents(None, None, "axelrod:TitFor")]
    assert "axelrod:TitForTat" in offered and "axelrod:TitFor2Tats" in offered
    assert "axelrod:Darwin" not in [item.value for item in
                                    complete_agents(None, None, "axelrod:D")]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_axelrod_name_is_a_strategy_or_one_line(name):
    """Whatever follows `axelrod:`: the strategy, or one clear line (never another error)."""
    from harness.agents.axelrod_strategies import axelrod_strategy, catalogue
    from harness.core.errors import AgentNotFound

    try:
        strategy = axelrod_strategy("axelrod:" + name)
    except AgentNotFound as error:
        assert len(str(error).splitlines()) == 1   # the name quoted, its newlines escaped
        return
    assert strategy.name in catalogue() and strategy.name.lower() == name.lower()


def test_allow_long_run_lets_a_long_run_strategy_in():
    """--allow-long-run (applied as it is read, harness/cli/commands/options.py)."""
    from harness.agents.axelrod_strategies import allow_long_run
    from harness.agents.specs import Kind, resolve_one
    from harness.core.errors import AgentNotFound

    with pytest.raises(AgentNotFound):
        resolve_one("axelrod:DBS")
    allow_long_run(True)
    try:
        [spec] = resolve_one("axelrod:dbs")   # any case: the class's own spelling
        assert spec.kind is Kind.AXELROD and spec.source == spec.name == "axelrod:DBS"
    finally:
        allow_long_run(False)


def test_a_game_that_is_no_whole_point_prisoners_dilemma_is_one_line(axelrod):
    """The adapter's player is a pdharness agent: it plays whole points of a Prisoner's
    Dilemma; another of Axelrod's games (half points, Chicken) is one line, not a
    truncated payoff or a traceback from deep in the game."""
    from harness.axelrod import _payoffs
    from harness.core.errors import HarnessError

    assert _payoffs(axelrod.DefaultGame).as_tuple() == (5, 3, 1, 0)
    for game in (axelrod.Game(r=3.5, s=0, t=5, p=1), axelrod.Game(r=3, s=1, t=5, p=0)):
        with pytest.raises(HarnessError) as refused:
            _payoffs(game)
        assert "\n" not in str(refused.value)
